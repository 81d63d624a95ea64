/**
 * read (refresh): the template as PVE has it now. Gone (or its VMID holding something that is
 * not ours, or no longer a template) reads as gone, and the engine plans a new one; a boot disk
 * on another storage than the input reads back as that storage, which `diff` shows as drift.
 */
import type { OperationContext } from "../pve/context";
import { hasCode } from "../pve/errors";
import { readTemplateMark } from "./mark";
import type { TemplateState } from "./state";

export async function readTemplate(
  ctx: OperationContext,
  state: TemplateState,
): Promise<TemplateState | undefined> {
  const row = (await ctx.listVms({ fresh: true })).find(
    (vm) => vm.type === "qemu" && vm.vmid === state.vmid,
  );
  if (row === undefined) return undefined;
  const config = await ctx.api.vmConfig(row.node, row.vmid).catch((error: unknown) => {
    if (hasCode(error, "NOT_FOUND")) return undefined;
    throw error;
  });
  if (config === undefined || config.template !== true) return undefined;
  if (readTemplateMark(config.description)?.id !== state.identityHash) return undefined;
  const disk = String(config["scsi0"] ?? "");
  const storage = /^([^:,]+):/.exec(disk)?.[1] ?? "";
  return { ...state, node: row.node, disk, storage };
}
