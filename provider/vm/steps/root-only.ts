/**
 * Inputs PVE lets only root@pam write, whatever the ACLs: qemu-server's
 * check_vm_modify_config_perm (`PVE/API2/Qemu.pm`) has `hookscript`, `affinity` and `hugepages` in
 * none of its privilege lists, so any other login gets "only root can set '<key>' config". Refused
 * at preview, naming the input, instead of after the clone.
 */
import type { CheckFailure } from "../../inputs/check-failure";
import { containsUnknown } from "../../inputs/unknown";
import type { OperationContext } from "../../pve/context";
import { PermanentError } from "../../pve/errors";

/** Each root-only input, read out of the inputs (undefined: not set). */
const ROOT_ONLY: readonly (readonly [string, (inputs: Record<string, unknown>) => unknown])[] = [
  ["hookscript", (inputs) => inputs["hookscript"]],
  ["cpu.affinity", (inputs) => (inputs["cpu"] as { affinity?: unknown } | undefined)?.affinity],
  [
    "memory.hugepages",
    (inputs) =>
      typeof inputs["memory"] === "object" && inputs["memory"] !== null
        ? (inputs["memory"] as { hugepages?: unknown }).hugepages
        : undefined,
  ],
];

/** The root-only inputs this change writes (set, and not as before), for a login that is not root@pam. */
export function rootOnlyWrites(
  olds: Readonly<Record<string, unknown>>,
  inputs: Readonly<Record<string, unknown>>,
  caller: string | undefined,
): CheckFailure[] {
  if (caller === undefined || caller === "root@pam") return [];
  const who = caller.includes("!") ? `the API token ${caller}` : `user ${caller}`;
  return ROOT_ONLY.flatMap(([property, valueOf]) => {
    const now = valueOf(inputs);
    if (now === undefined || containsUnknown(now) || now === valueOf(olds)) return [];
    return [
      {
        property,
        reason:
          `PVE lets only root@pam set it, whatever the ACLs, and ${who} is not root@pam. Log ` +
          `in as root@pam with a password (proxmox:username and proxmox:password) for this ` +
          `stack, or leave ${property} out.`,
      },
    ];
  });
}

/** The rule as `check` runs it: silent when the connection cannot be made (create looks again). */
export async function rootOnlyFailures(
  context: () => Promise<OperationContext>,
  olds: Readonly<Record<string, unknown>>,
  inputs: Readonly<Record<string, unknown>>,
): Promise<CheckFailure[]> {
  if (rootOnlyWrites(olds, inputs, "-").length === 0) return [];
  const caller = await context().then(
    (ctx) => ctx.caller,
    () => undefined,
  );
  return rootOnlyWrites(olds, inputs, caller);
}

/** The rule as create's preflight runs it, before the clone. */
export function assertRootOnly(ctx: OperationContext, inputs: Readonly<Record<string, unknown>>) {
  const [first] = rootOnlyWrites({}, inputs, ctx.caller);
  if (first !== undefined)
    throw new PermanentError("INVALID_PARAM", `${first.property}: ${first.reason}`, {});
}
