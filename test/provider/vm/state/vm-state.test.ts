import { describe, expect, it } from "vitest";
import { PermanentError } from "../../../../provider/pve/errors";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { namingOf, type ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import {
  parseVmState,
  unobservedVmState,
  VM_STATE_VERSION,
} from "../../../../provider/vm/state/vm-state";
import { capturedOutputs } from "./released-states";

/** Outputs as pulumi-proxmox 0.1.0 (b338f75) stored them: `web` complete, `half` a partial create. */
const fixture = (name: "complete" | "partial-create"): Record<string, unknown> =>
  capturedOutputs("0.1.0-b338f75", name === "complete" ? "web" : "half");

describe("parseVmState", () => {
  it("reads a complete state written by 0.1.0 as a complete VM of the current version", () => {
    const state = parseVmState(fixture("complete"));
    expect(state).toMatchObject({
      schemaVersion: VM_STATE_VERSION,
      phase: "complete",
      vmid: 21177,
      status: "running",
      ipv4Addresses: ["10.10.0.100"],
    });
  });

  it("reads 0.1.0's partial create (no schemaVersion, nothing observed) as an unfinished create", () => {
    const state = parseVmState(fixture("partial-create"));
    expect(state).toMatchObject({
      schemaVersion: VM_STATE_VERSION,
      phase: "creating",
      vmid: 26401,
      status: "unknown",
      ipv4Addresses: [],
      ipv6Addresses: [],
    });
  });

  it("reads the reliability release's partial create as an unfinished create, unchanged", () => {
    const stored = capturedOutputs("reliability-57e1e7b", "half");
    expect(parseVmState(stored)).toMatchObject({ ...stored, phase: "creating", status: "unknown" });
  });

  it("keeps the provider reference and every input through the migration", () => {
    const stored = fixture("partial-create");
    const state = parseVmState(stored) as Record<string, unknown>;
    for (const key of Object.keys(stored)) expect(state[key], key).toEqual(stored[key]);
  });

  it("reads 0.1.0's VM as a full clone with the agent as it was, under the identity it was created with", () => {
    const stored = fixture("complete");
    const state = parseVmState(stored);
    expect(state).toMatchObject({ clone: { full: true }, agent: {} });
    expect(namingOf(state as unknown as ResolvedInputs).identity).toBe(stored["identityHash"]);
    // The same program after the upgrade: no replacement, no update.
    expect(diffVm(stored, state as unknown as Record<string, unknown>)).toMatchObject({
      changes: false,
    });
  });

  it("reads the partial state this release writes after a failed step", () => {
    const { phase, schemaVersion, ...inputs } = fixture("partial-create");
    expect([phase, schemaVersion]).toEqual(["creating", undefined]);
    const written = unobservedVmState(inputs, {
      vmid: 26401,
      node: "pve2",
      identityHash: "f6022d72874ab8f1",
      vmName: "half-f6022d",
    });
    expect(parseVmState(JSON.parse(JSON.stringify(written)))).toMatchObject({
      phase: "creating",
      status: "unknown",
    });
  });

  it("refuses a state from a newer release, saying to upgrade", () => {
    const newer = { ...fixture("complete"), schemaVersion: VM_STATE_VERSION + 1 };
    expect(() => parseVmState(newer)).toThrow(PermanentError);
    expect(() => parseVmState(newer)).toThrow(/VM 21177.*newer release\. Upgrade pulumi-proxmox/);
  });

  it("names the broken field of a damaged state instead of dumping the schema", () => {
    const damaged = { ...fixture("complete"), currentNode: 7 };
    expect(() => parseVmState(damaged)).toThrow(
      /The stored state of VM 21177 cannot be read \(currentNode: .*\)/,
    );
  });
});
