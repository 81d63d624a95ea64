/**
 * The outputs Pulumi stores for a ProxmoxVm. They hold the normalised inputs (so `diff` can
 * compare old against new) and what was observed on PVE (so a refresh shows drift). Versioned:
 * every state a released version wrote is migrated (migrations.ts) before it is parsed, and a
 * state this release cannot read is a clear error, never a schema dump.
 */
import { z } from "zod";
import { PermanentError } from "../../pve/errors";
import { phaseSchema } from "../identity";
import { identityInputSchema } from "../../inputs/unknown";
import { storedInputsShape } from "../spec/derive";
import { migrateVmState, versionOf, VM_STATE_VERSION } from "./migrations";

export { VM_STATE_VERSION };

const vmStateSchema = z.looseObject({
  schemaVersion: z.literal(VM_STATE_VERSION),
  identity: identityInputSchema,
  /** sha256 prefix of owner + placement; the VM's mark carries it. */
  identityHash: z.string(),
  // The inputs, each as the spec stores it: placement as created, managed settings as observed
  // (when the input is set), the provider's own settings as given, `vmid` as allocated.
  ...storedInputsShape,
  // Observed.
  vmName: z.string(),
  /** Where the VM runs now; differs from `node` after an HA move or a manual migration. */
  currentNode: z.string(),
  /** The mark's phase as last seen: `creating` means the next `up` finishes the create. */
  phase: phaseSchema,
  /** `unknown` in a state saved before the VM could be observed (a partial create). */
  status: z.string(),
  macAddress: z.string().optional(),
  ipv4Addresses: z.array(z.string()),
  ipv6Addresses: z.array(z.string()),
  /** The seed ISO attached as ide2, e.g. `local:iso/pp-0123456789ab-cdef01234567.iso`. */
  seedVolid: z.string().optional(),
  /**
   * The config keys PVE holds under `/pending` for the VM's next reboot. States written before
   * the output existed have none: the next refresh reads them.
   */
  pendingChanges: z.array(z.string()).default([]),
  /**
   * The snapshot a killed `rollbackOnFailure` update left, as the last read found it: the next
   * `up` finishes that update (diff reports it), even when the program changes nothing else.
   */
  unfinishedUpdate: z.string().optional(),
});

export type VmState = z.infer<typeof vmStateSchema>;

/** Parses stored outputs of any released version into the current shape. */
export function parseVmState(outputs: unknown): VmState {
  const raw = (typeof outputs === "object" && outputs !== null ? outputs : {}) as Record<
    string,
    unknown
  >;
  const version = versionOf(raw);
  const vmid = typeof raw["vmid"] === "number" ? raw["vmid"] : undefined;
  const where = vmid === undefined ? "" : ` of VM ${vmid}`;
  if (typeof version !== "number" || !Number.isInteger(version) || version > VM_STATE_VERSION) {
    throw new PermanentError(
      "BAD_STATE",
      `The stored state${where} has schema version ${JSON.stringify(version)}, but this ` +
        `pulumi-proxmox reads versions 0 to ${VM_STATE_VERSION}: it was written by a newer ` +
        "release. Upgrade pulumi-proxmox in this project.",
      vmid === undefined ? {} : { vmid },
    );
  }
  const parsed = vmStateSchema.safeParse(migrateVmState(raw));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  throw new PermanentError(
    "BAD_STATE",
    `The stored state${where} cannot be read (${problems}). It was not written by a released ` +
      "pulumi-proxmox; run `pulumi refresh` after restoring it from `pulumi stack history`, or " +
      "report the state (without secrets) as a bug.",
    vmid === undefined ? {} : { vmid },
  );
}

/**
 * The state of a VM that exists but could not be observed yet: a create that failed after the
 * clone. It satisfies the schema like any other state, so refresh, update (which finishes the
 * create) and delete all accept it.
 */
export function unobservedVmState(
  inputs: Record<string, unknown>,
  vm: { vmid: number; node: string; identityHash: string; vmName: string },
): Record<string, unknown> {
  return {
    ...inputs,
    schemaVersion: VM_STATE_VERSION,
    identityHash: vm.identityHash,
    vmid: vm.vmid,
    vmName: vm.vmName,
    currentNode: vm.node,
    phase: "creating",
    status: "unknown",
    ipv4Addresses: [],
    ipv6Addresses: [],
  };
}
