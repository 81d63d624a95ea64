/**
 * Finds the template to clone, by VMID or by name, from the (shared) cluster listing. The
 * listing tells where it lives; its config confirms it is a template.
 */
import type { OperationContext } from "../../pve/context";
import type { ClusterVm } from "../../pve/api/proxmox-api";
import { hasCode, PermanentError, vmLabel } from "../../pve/errors";
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
  const find = (listed: readonly ClusterVm[]) => {
    const vms = listed.filter((vm) => vm.type === "qemu");
    const matches =
      typeof template === "number"
        ? vms.filter((vm) => vm.vmid === template)
        : vms.filter((vm) => vm.name === template && vm.template);
    return matches.find((vm) => vm.node === preferNode) ?? matches[0];
  };
  // A template made moments ago (a CloudImageTemplate of the same program) may be missing from
  // a shared listing fetched before it, and PVE's own listing lags by seconds: look again
  // fresh, then, for a VMID, on the VM's node itself.
  const chosen =
    find(await ctx.listVms()) ??
    find(await ctx.listVms({ fresh: true })) ??
    (typeof template === "number" ? await onNode(ctx, template, preferNode) : undefined);
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
      `${vmLabel(chosen)} is not a template; convert it with ` +
        "`qm template <vmid>` or choose a template.",
      { node: chosen.node, vmid: chosen.vmid },
    );
  }
  return { node: chosen.node, vmid: chosen.vmid, driveStorages: driveStorages(config) };
}

/** The VM `vmid` read on `node` directly, as a listing row; undefined when it is not there. */
async function onNode(
  ctx: OperationContext,
  vmid: number,
  node: string,
): Promise<ClusterVm | undefined> {
  try {
    await ctx.api.vmConfig(node, vmid);
    return { vmid, node, type: "qemu", status: "stopped" };
  } catch (error) {
    if (hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  }
}
