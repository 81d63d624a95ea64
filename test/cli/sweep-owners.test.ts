import { describe, expect, it } from "vitest";
import { identitiesIn, pendingCreateIdentitiesIn, VM_TYPE } from "../../cli/sweep-owners";
import { identityOf } from "../../provider/identity";

const inputs = (name: string) => ({
  identity: { project: "p", stack: "dev", name },
  node: "pve1",
  template: 9000,
  isoStorage: "local",
});
const id = (name: string) =>
  identityOf(
    { project: "p", stack: "dev", name },
    { node: "pve1", template: 9000, isoStorage: "local" },
  );

const state = {
  deployment: {
    resources: [{ type: VM_TYPE, inputs: inputs("kept"), outputs: { identityHash: id("kept") } }],
    pending_operations: [
      { type: "creating", resource: { type: VM_TYPE, inputs: inputs("killed") } },
      { type: "creating", resource: { type: VM_TYPE, inputs: inputs("kept") } },
      { type: "deleting", resource: { type: VM_TYPE, inputs: inputs("gone") } },
      { type: "creating", resource: { type: "other:Thing", inputs: inputs("other") } },
    ],
  },
};

describe("sweep-owners", () => {
  it("counts only the state's resources as owners, never a pending create", () => {
    expect([...identitiesIn(state)]).toEqual([id("kept")]);
  });

  it("finds the VM creates an interrupted run left pending, less those a resource holds", () => {
    expect([...pendingCreateIdentitiesIn(state)]).toEqual([id("killed")]);
  });
});
