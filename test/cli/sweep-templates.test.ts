import { describe, expect, it } from "vitest";
import { TEMPLATE_TYPE, templateOwners } from "../../cli/sweep-templates";
import { VM_TYPE } from "../../cli/sweep-owners";
import { checkTemplate, type TemplateInputs } from "../../provider/template/inputs";
import { planOf } from "../../provider/template/mark";

const inputs = (name: string) => ({
  identity: { project: "p", stack: "dev", name },
  url: "https://images.example/debian-12.qcow2",
  node: "pve1",
});
const identityOf = (name: string) =>
  planOf(checkTemplate(inputs(name)).inputs as TemplateInputs).identity;

describe("templateOwners", () => {
  it("owns the templates of the state's resources and counts a pending create as interrupted", () => {
    const owners = templateOwners([
      {
        deployment: {
          resources: [
            { type: TEMPLATE_TYPE, outputs: { identityHash: "00000000000000aa" } },
            { type: TEMPLATE_TYPE, inputs: inputs("kept") },
            { type: VM_TYPE, outputs: { identityHash: "00000000000000bb" } },
          ],
          pending_operations: [
            { type: "creating", resource: { type: TEMPLATE_TYPE, inputs: inputs("killed") } },
            { type: "creating", resource: { type: TEMPLATE_TYPE, inputs: inputs("kept") } },
          ],
        },
      },
    ]);
    expect([...owners.owned].sort()).toEqual(["00000000000000aa", identityOf("kept")].sort());
    expect([...owners.interrupted]).toEqual([identityOf("killed")]);
  });
});
