/**
 * Who may give a VM host hardware or a host directory, as qemu-server's `PVE/API2/Qemu.pm` checks
 * it (`check_hostpci_perm`, `check_usb_perm`, `check_dir_perm`): root@pam (a password login; a
 * token is never root@pam) may set anything; anyone else only a mapping, with `Mapping.Use` on
 * `/mapping/<type>/<id>` beside the VM privilege. Before 8.0 there are no mappings and
 * `check_vm_modify_config_perm` leaves `hostpciN` to root alone. Each refusal is a plain `die`
 * in the handler: a 500 with the text, not a 403.
 */
import { requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { dieError } from "../http/index.js";
import { parseProperty } from "../http/property-string.js";
import type { PveVersion } from "../model/versions.js";
import { passthroughFormat } from "../model/passthrough-formats.js";

/** Whether `key` is one of the keys checked here. */
export const PASSTHROUGH_KEY = /^(?:hostpci\d+|usb\d+|virtiofs\d)$/;

/** Throws PVE's 403 when `tokenId` may not set `key` to `value` (undefined: a delete). */
export function checkPassthroughPrivileges(
  sim: SimContext,
  tokenId: string,
  vmid: number,
  key: string,
  value: string | undefined,
): void {
  if (tokenId === "root@pam") return;
  const release: PveVersion = sim.options.profile.pveVersion;
  const vm = `/vms/${vmid}`;
  if (/^hostpci/.test(key) && release === "7.4")
    throw dieError(`only root can set '${key}' config`);
  const format = passthroughFormat(key, release);
  const parsed = value === undefined || format === undefined ? {} : parseProperty(format, value);
  const device = typeof parsed === "string" ? {} : parsed;
  const mapping = device["mapping"];
  if (key.startsWith("virtiofs")) {
    requirePrivs(sim, tokenId, vm, ["VM.Config.Options"]);
    if (device["dirid"] !== undefined)
      requirePrivs(sim, tokenId, `/mapping/dir/${device["dirid"]}`, ["Mapping.Use"]);
    return;
  }
  if (key.startsWith("usb")) {
    requirePrivs(sim, tokenId, vm, ["VM.Config.HWType"]);
    if (value === undefined) return;
    const host = device["host"];
    if (host !== undefined && !/^spice$/i.test(host))
      throw dieError(`only root can set '${key}' config for real devices`);
    if (mapping === undefined) throw dieError("either 'host' or 'mapping' must be set.");
    requirePrivs(sim, tokenId, `/mapping/usb/${mapping}`, ["Mapping.Use"]);
    return;
  }
  if (value === undefined) return requirePrivs(sim, tokenId, vm, ["VM.Config.HWType"]);
  if (device["host"] !== undefined)
    throw dieError(`only root can set '${key}' config for non-mapped devices`);
  if (mapping === undefined) throw dieError("either 'host' or 'mapping' must be set.");
  requirePrivs(sim, tokenId, `/mapping/pci/${mapping}`, ["Mapping.Use"]);
  requirePrivs(sim, tokenId, vm, ["VM.Config.HWType"]);
}
