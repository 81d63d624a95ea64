import { dieError, type Params } from "../http/index.js";
import { requireBridgeAccess, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { isCloudinitVolume } from "../model/drive-format.js";
import { DRIVE_KEY } from "../model/vm-config.js";
import { keyPrivilege } from "./config-schema.js";
import { checkPassthroughPrivileges, PASSTHROUGH_KEY } from "./passthrough-privileges.js";

/** The privilege each config key needs on the VM, and SDN.Use on each NIC's bridge. */
export function checkKeyPrivileges(
  sim: SimContext,
  tokenId: string,
  vmid: number,
  keys: readonly string[],
  params: Params,
): void {
  // check_vm_modify_config_perm: `return 1 if $authuser eq 'root@pam'` (a token never is).
  if (tokenId === "root@pam") return;
  const release = sim.options.profile.pveVersion;
  for (const key of keys) {
    const value = params[key] === undefined ? undefined : String(params[key]);
    if (PASSTHROUGH_KEY.test(key)) {
      checkPassthroughPrivileges(sim, tokenId, vmid, key, value);
      continue;
    }
    const priv = keyPrivilege(key, value, release);
    // A plain `die` in check_vm_modify_config_perm, so a 500, not a permission exception's 403.
    if (priv === "root") throw dieError(`only root can set '${key}' config`);
    // A cloud-init drive wants both (qemu-server 7.2-10, "fix #4321").
    const file = /^(?:(?:file|volume)=)?([^,]*)/.exec(value ?? "")?.[1] ?? "";
    const cloudinit =
      DRIVE_KEY.test(key) && (/(^|:)cloudinit$/.test(file) || isCloudinitVolume(file));
    const privs = cloudinit ? ["VM.Config.Cloudinit", "VM.Config.CDROM"] : [priv];
    requirePrivs(sim, tokenId, `/vms/${vmid}`, privs);
    if (/^net\d+$/.test(key) && value !== undefined) requireBridgeAccess(sim, tokenId, value);
  }
}
