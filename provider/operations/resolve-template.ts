/**
 * Finds the template to clone, by VMID or by name, from the (shared) cluster listing. The
 * listing tells where it lives; its config confirms it is a template.
 */
import type { OperationContext } from "../context";
import { PermanentError } from "../errors";
import { driveStorages } from "../state/vm-facts";
import type { TemplateRef } from "./clone";

/** The template to clone, and the storages its drives use (whether PVE clones it to another node). */
export interface ResolvedTemplate extends TemplateRef {
  readonly driveStorages: readonly string[];
}

export async function resolveTemplate(
  ctx: OperationContext,
  template: string | number,
  preferNode: string,
): Promise<ResolvedTemplate> {
  const vms = (await ctx.listVms()).filter((vm) => vm.type === "qemu");
  const matches =
    typeof template === "number"
      ? vms.filter((vm) => vm.vmid === template)
      : vms.filter((vm) => vm.name === template && vm.template);
  const chosen = matches.find((vm) => vm.node === preferNode) ?? matches[0];
  if (!chosen) {
    throw new PermanentError(
      "NOT_FOUND",
      `Template ${JSON.stringify(template)} was not found on the cluster. ` +
        "Check the name or VMID (`qm list` on a node) and that the token has VM.Audit on it.",
    );
  }
  const config = await ctx.api.vmConfig(chosen.node, chosen.vmid);
  if (!config.template) {
    throw new PermanentError(
      "INVALID_PARAM",
      `VM ${chosen.vmid} on node ${chosen.node} is not a template; convert it with ` +
        "`qm template <vmid>` or choose a template.",
      { node: chosen.node, vmid: chosen.vmid },
    );
  }
  return { node: chosen.node, vmid: chosen.vmid, driveStorages: driveStorages(config) };
}
