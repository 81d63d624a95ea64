import { describe, expect, it } from "vitest";
import { identityOf } from "../../provider/vm/identity";
import { checkTemplate, type TemplateInputs } from "../../provider/template/template-inputs";
import { identitiesIn, pendingCreateIdentitiesIn, templateOwners } from "../../cli/sweep-owners";
import { TEMPLATE_TYPE, VM_TYPE } from "../../provider/entry";
import { planOf } from "../../provider/template/mark";

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

const templateInputs = (name: string) => ({
  identity: { project: "p", stack: "dev", name },
  url: "https://images.example/debian-12.qcow2",
  node: "pve1",
});
const templateIdentity = (name: string) =>
  planOf(checkTemplate(templateInputs(name)).inputs as TemplateInputs).identity;

describe("templateOwners", () => {
  it("owns the templates of the state's resources and counts a pending create as interrupted", () => {
    const owners = templateOwners([
      {
        deployment: {
          resources: [
            { type: TEMPLATE_TYPE, outputs: { identityHash: "00000000000000aa" } },
            { type: TEMPLATE_TYPE, inputs: templateInputs("kept") },
            { type: VM_TYPE, outputs: { identityHash: "00000000000000bb" } },
          ],
          pending_operations: [
            {
              type: "creating",
              resource: { type: TEMPLATE_TYPE, inputs: templateInputs("killed") },
            },
            { type: "creating", resource: { type: TEMPLATE_TYPE, inputs: templateInputs("kept") } },
          ],
        },
      },
    ]);
    expect([...owners.owned].sort()).toEqual(["00000000000000aa", templateIdentity("kept")].sort());
    expect([...owners.interrupted]).toEqual([templateIdentity("killed")]);
  });
});
