import { vmLabel, type ErrorContext } from "../errors.js";

/**
 * Reads node, VMID and UPID out of an API path such as `/nodes/pve1/qemu/100/config` or
 * `/nodes/pve1/tasks/UPID:…/status`, so every error says where it happened without the
 * caller passing it along. Paths are the unencoded form the client builds (no query string).
 */
export function pathContext(path: string): Pick<ErrorContext, "node" | "vmid" | "upid"> {
  const segments = path.split("/").filter((segment) => segment !== "");
  const out: { node?: string; vmid?: number; upid?: string } = {};
  if (segments[0] !== "nodes" || segments[1] === undefined) return out;
  out.node = segments[1];
  const kind = segments[2];
  const id = segments[3];
  if ((kind === "qemu" || kind === "lxc") && id !== undefined && /^\d+$/.test(id)) {
    out.vmid = Number(id);
  }
  if (kind === "tasks" && id?.startsWith("UPID:")) out.upid = id;
  return out;
}

/** "VM 100 on pve1", "node pve1", or "" when the path names neither. */
export function describeTarget(context: Pick<ErrorContext, "node" | "vmid">): string {
  if (context.vmid !== undefined) return vmLabel({ vmid: context.vmid, node: context.node });
  return context.node === undefined ? "" : `node ${context.node}`;
}
