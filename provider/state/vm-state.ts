/**
 * The outputs Pulumi stores for a ProxmoxVm. They hold the normalised inputs (so `diff` can
 * compare old against new) and what was observed on PVE (so a refresh shows drift). Versioned:
 * a newer provider must read state written by an older one.
 */
import { z } from "zod";
import { identityInputSchema, networkSchema, timeoutsSchema } from "../inputs";

export const VM_STATE_VERSION = 1;

export const vmStateSchema = z.looseObject({
  schemaVersion: z.literal(VM_STATE_VERSION),
  identity: identityInputSchema,
  /** sha256 prefix of owner + placement; the VM's mark carries it. */
  identityHash: z.string(),
  // Placement (inputs; a change replaces the VM).
  node: z.string(),
  template: z.union([z.string(), z.number()]),
  storage: z.string().optional(),
  isoStorage: z.string(),
  name: z.string().optional(),
  vmidRange: z.object({ min: z.number(), max: z.number() }),
  // Managed settings: the observed value when the input is set.
  cores: z.number().optional(),
  memory: z.number().optional(),
  diskSize: z.number().optional(),
  network: networkSchema,
  cloudInit: z.unknown().optional(),
  tags: z.array(z.string()).optional(),
  description: z.string().optional(),
  started: z.boolean(),
  waitForIp: z.boolean(),
  rebootPolicy: z.enum(["allow", "never"]),
  nodeDrift: z.enum(["moveBack", "accept"]).default("moveBack"),
  adopt: z.boolean(),
  timeouts: timeoutsSchema,
  // Observed.
  vmid: z.number(),
  vmName: z.string(),
  /** Where the VM runs now; differs from `node` after an HA move or a manual migration. */
  currentNode: z.string(),
  status: z.string(),
  macAddress: z.string().optional(),
  ipv4Addresses: z.array(z.string()),
  ipv6Addresses: z.array(z.string()),
  /** The seed ISO attached as ide2, e.g. `local:iso/pp-0123456789ab-cdef01234567.iso`. */
  seedVolid: z.string().optional(),
  /** sha256 prefix of the rendered seed documents; a change means re-seed. */
  seedHash: z.string().optional(),
});

export type VmState = z.infer<typeof vmStateSchema>;

/** Parses stored outputs; older schema versions would be migrated here. */
export function parseVmState(outputs: unknown): VmState {
  return vmStateSchema.parse(outputs);
}
