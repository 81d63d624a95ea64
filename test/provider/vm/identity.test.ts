import { describe, expect, it } from "vitest";
import {
  describe as describeVm,
  identityOf,
  markFor,
  markMatches,
  probeOrder,
  readMark,
  vmNameFor,
} from "../../../provider/vm/identity";
import { userDescription } from "../../../provider/vm/description";

const owner = { project: "infra", stack: "prod", name: "web-1" };
const placement = { node: "pve1", template: 9000, isoStorage: "local" };

describe("identity", () => {
  it("is stable for the same owner and placement", () => {
    expect(identityOf(owner, placement)).toBe(identityOf({ ...owner }, { ...placement }));
    expect(identityOf(owner, placement)).toMatch(/^[0-9a-f]{16}$/);
  });

  it.each([
    ["node", { node: "pve2" }],
    ["template", { template: 9001 }],
    ["storage", { storage: "fast" }],
    ["isoStorage", { isoStorage: "shared" }],
  ])("changes when the %s of the placement changes", (_key, change) => {
    expect(identityOf(owner, { ...placement, ...change })).not.toBe(identityOf(owner, placement));
  });

  it("is what 0.1.0 computed for a full clone, so VMs it created keep their identity", () => {
    // sha256 of ["infra","prod","web-1","pve1","9000","","local"], as released.
    expect(identityOf(owner, placement)).toBe("5cea119bc10ae3b7");
    expect(identityOf(owner, { ...placement, clone: { full: true } })).toBe("5cea119bc10ae3b7");
  });

  it("changes for a linked clone, so a change of clone mode is a replacement that never adopts", () => {
    expect(identityOf(owner, { ...placement, clone: { full: false } })).not.toBe(
      identityOf(owner, placement),
    );
  });

  it("changes with the stack, so two stacks never share a VM", () => {
    expect(identityOf({ ...owner, stack: "dev" }, placement)).not.toBe(
      identityOf(owner, placement),
    );
  });

  it("derives a DNS-safe VM name from the resource name", () => {
    expect(vmNameFor({ ...owner, name: "Web_Server #1" }, "0123456789abcdef")).toBe(
      "web-server-1-012345",
    );
  });

  it("probes VMIDs from the identity's slot and wraps around the range", () => {
    const order = probeOrder("0000000000000009", { min: 100, max: 109 }, 4);
    expect(order).toEqual([109, 100, 101, 102]);
  });

  it("never probes more VMIDs than the range holds", () => {
    expect(probeOrder("00000000000000ff", { min: 100, max: 102 }, 32)).toHaveLength(3);
  });
});

describe("mark", () => {
  const mark = markFor("0123456789abcdef", placement, "creating");

  it("round-trips through the VM description after the user's text", () => {
    const description = describeVm("Primary database", mark);
    expect(readMark(description)).toEqual(mark);
    expect(userDescription(description)).toBe("Primary database");
  });

  it("stands alone when the user gave no description", () => {
    expect(userDescription(describeVm(undefined, mark))).toBeUndefined();
  });

  it("reads as absent from a foreign or mangled description", () => {
    expect(readMark(" qmclone temporary file")).toBeUndefined();
    expect(readMark('pulumi-proxmox:{"v":1,"id":"nothex"}')).toBeUndefined();
  });

  it("matches only the placement it was written for", () => {
    expect(markMatches(mark, placement)).toBe(true);
    expect(markMatches(mark, { ...placement, template: 9001 })).toBe(false);
    expect(markMatches(mark, { ...placement, clone: { full: false } })).toBe(false);
  });

  it("records a linked clone, and leaves a full clone as 0.1.0 wrote it", () => {
    expect(mark).not.toHaveProperty("clone");
    expect(
      markFor("0123456789abcdef", { ...placement, clone: { full: true } }, "creating"),
    ).toEqual(mark);
    const linked = markFor(
      "0123456789abcdef",
      { ...placement, clone: { full: false } },
      "creating",
    );
    expect(readMark(describeVm(undefined, linked))).toEqual({ ...mark, clone: { full: false } });
    expect(markMatches(linked, { ...placement, clone: { full: false } })).toBe(true);
  });
});
