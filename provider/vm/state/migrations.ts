/**
 * How a stored state of any earlier schema version becomes the current one. Each migration moves
 * one version up and touches only what that version changed, so a state written by any released
 * version reaches today's shape through the same steps, in order.
 *
 * Versions, and the releases that write them (states of each are captured under
 * test/provider/vm/state/fixtures/releases and run through the engine by a test):
 * - 0: no `schemaVersion` at all. Only 0.1.0's partial create wrote it (a VM cloned, then a later
 *   step failed): the inputs plus vmid, name, node and `phase`, without the observed fields.
 * - 1: 0.1.0's complete state.
 * - 2: adds `phase`, the VM's own mark phase as last seen, so every command can tell an unfinished
 *   create from a finished VM without reading PVE. Written by the reliability release (57e1e7b),
 *   complete and partial alike, and by this one. Inputs added since (disks, networks, cpu,
 *   firmware, clone…) need no new version: each is optional in the stored shape, or defaults to
 *   what those releases did (a full clone, the agent as the template had it).
 */
type Raw = Record<string, unknown>;

interface Migration {
  readonly from: number;
  readonly migrate: (state: Raw) => Raw;
}

const MIGRATIONS: readonly Migration[] = [
  {
    from: 0,
    // Nothing was observed yet: the next refresh or update reads the real values.
    migrate: (state) => ({
      status: "unknown",
      ipv4Addresses: [],
      ipv6Addresses: [],
      ...state,
      phase: "creating",
      schemaVersion: 1,
    }),
  },
  {
    from: 1,
    // A version-1 state with no phase was returned by a create that finished.
    migrate: (state) => ({ phase: "complete", ...state, schemaVersion: 2 }),
  },
];

/** The schema version this release writes. */
export const VM_STATE_VERSION = MIGRATIONS.length;

/** The stored version: a state without the field is version 0. */
export function versionOf(state: Raw): unknown {
  return state["schemaVersion"] ?? 0;
}

/** Applies every migration from the state's version up; the caller checks the version first. */
export function migrateVmState(state: Raw): Raw {
  let current = state;
  for (const step of MIGRATIONS) {
    if (versionOf(current) === step.from) current = step.migrate(current);
  }
  return current;
}
