/**
 * A 403: the privilege and ACL path PVE checked (RPCEnvironment.pm `check`, `check_any`), said as
 * what the login lacks and the pveum line that grants it. Part of `classify` (classify.ts).
 */
import { PermanentError, missingPool, type ErrorContext } from "./errors.js";
import type { Login } from "./config.js";
import { at } from "./pve-answer.js";

export function forbidden(
  request: string,
  target: string,
  pve: string,
  context: ErrorContext,
  login: Login | undefined,
) {
  // RPCEnvironment.pm check_pool_exist (clone_vm's `pool`) raises a permission error.
  const pool = /^Permission check failed \(pool '([^']+)' does not exist\)/.exec(pve)?.[1];
  if (pool !== undefined) {
    return new PermanentError(
      "NOT_FOUND",
      `${request}${at(target)} failed: ${missingPool(pool)}`,
      context,
    );
  }
  // qemu-server's check_vm_modify_config_perm: a key in none of its privilege lists (`args`,
  // `hookscript`, `affinity`, `hugepages`…) is root@pam's alone, whatever the ACLs say.
  const rootKey = /only root can set '([^']+)' config/.exec(pve)?.[1];
  if (rootKey !== undefined) {
    return new PermanentError(
      "FORBIDDEN",
      `${request}${at(target)} was refused: PVE lets only root@pam set '${rootKey}', whatever ` +
        `the ACLs. Log in as root@pam with a password (stack config proxmox:username and ` +
        `proxmox:password) or leave out the input that writes '${rootKey}'.`,
      context,
    );
  }
  // RPCEnvironment.pm check / check_any: "Permission check failed (/vms/100, VM.Clone)";
  // any-of checks join privileges with "|"; tag checks add " for modifying tag '<t>'".
  const match = /^Permission check failed \(([^,()]+), ([A-Za-z.]+(?:\|[A-Za-z.]+)*)/.exec(pve);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    const [aclPath, privilege] = [match[1], match[2]];
    const what = privilege.includes("|") ? `one of ${privilege.split("|").join(", ")}` : privilege;
    // A password login's privileges are its user's; a token's may be separated from its user's.
    const grant =
      login?.kind === "password"
        ? `the user ${login.username} lacks ${what} on ${aclPath}. Grant a role with it on ` +
          `${aclPath} (pveum acl modify ${aclPath} --users ${login.username} --roles <role>).`
        : `the API token${login === undefined ? "" : ` ${login.tokenId}`} lacks ${what} on ` +
          `${aclPath}. Grant a role with it on ${aclPath} (pveum acl modify ${aclPath} --tokens ` +
          `${login === undefined ? "<token-id>" : login.tokenId} --roles <role>); a token with ` +
          `privilege separation needs the ACL on the token itself.`;
    return new PermanentError("FORBIDDEN", `${request}${at(target)} was denied: ${grant}`, {
      ...context,
      aclPath,
      privilege,
    });
  }
  return new PermanentError(
    "FORBIDDEN",
    login?.kind === "password"
      ? `${request}${at(target)} was denied (403 ${pve}). Check the ACLs of the user ${login.username}.`
      : `${request}${at(target)} was denied (403 ${pve}). Check the ACLs of the API token and, ` +
          `with privilege separation, of the token itself.`,
    context,
  );
}
