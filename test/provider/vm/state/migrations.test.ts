import { describe, expect, it } from "vitest";
import {
  migrateVmState,
  versionOf,
  VM_STATE_VERSION,
} from "../../../../provider/vm/state/migrations";
import { capturedOutputs } from "./released-states";

describe("migrateVmState", () => {
  it("takes 0.1.0's partial create (version 0) to an unfinished create with nothing observed", () => {
    const stored = capturedOutputs("0.1.0-b338f75", "half");
    expect(versionOf(stored)).toBe(0);
    expect(migrateVmState(stored)).toEqual({
      ...stored,
      status: "unknown",
      ipv4Addresses: [],
      ipv6Addresses: [],
      phase: "creating",
      schemaVersion: VM_STATE_VERSION,
    });
  });

  it("takes 0.1.0's complete state (version 1) to a finished VM, adding only its phase", () => {
    const stored = capturedOutputs("0.1.0-b338f75", "web");
    expect(versionOf(stored)).toBe(1);
    expect(migrateVmState(stored)).toEqual({
      ...stored,
      phase: "complete",
      schemaVersion: VM_STATE_VERSION,
    });
  });

  it("leaves the reliability release's states (version 2), complete and partial, as they are", () => {
    for (const name of ["web", "half"] as const) {
      const stored = capturedOutputs("reliability-57e1e7b", name);
      expect(versionOf(stored), name).toBe(2);
      expect(migrateVmState(stored), name).toEqual(stored);
    }
  });

  it("reads a state without the field as version 0", () => {
    expect(versionOf({ vmid: 100 })).toBe(0);
  });
});
