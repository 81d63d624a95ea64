/**
 * `pulumi-proxmox rollback`: the one way to roll a stack's VM back to a snapshot on purpose. It
 * refuses a VM whose mark names another owner (another stack's, or one adopted away), rolls back
 * (starting the VM after with `--start`), then runs `drift` so the user sees what the next `up`
 * will change: the VM's config is the snapshot's now, and the program still says otherwise.
 */
import { connect, readMark, rollbackToSnapshot, vmLabel } from "../provider/entry";
import {
  CONNECTION_FLAGS,
  CONNECTION_HELP,
  STACK_HELP,
  parseFlags,
  required,
  type Io,
} from "./args";
import { selectStack, type StackSelection } from "./automation";
import { commandConnection } from "./connection";
import { drift } from "./drift";
import { formatReport, UsageError, type CommandReport, type ExitCode } from "./report";
import { findRollbackVm, snapshotNameIn, type RollbackState } from "./rollback-target";

export interface RollbackOptions extends StackSelection {
  /** The VM: its ProxmoxVm resource name or its VM name. */
  readonly vm: string;
  /** The snapshot: a VmSnapshot resource name of that VM, or the snapshot's PVE name. */
  readonly snapshot: string;
  /** Start the VM after the rollback (PVE leaves it stopped unless the snapshot holds the RAM). */
  readonly start?: boolean | undefined;
  readonly connection?: Parameters<typeof connect>[0] | undefined;
  readonly onProgress?: ((line: string) => void) | undefined;
  /** The drift run's engine output. */
  readonly onOutput?: ((text: string) => void) | undefined;
}

export interface RollbackReport {
  readonly vmid: number;
  readonly node: string;
  readonly snapshot: string;
  /** What `up` will now change (`pulumi-proxmox drift`'s report). */
  readonly drift: CommandReport;
}

export async function rollback(options: RollbackOptions): Promise<RollbackReport> {
  const progress = options.onProgress ?? (() => undefined);
  const state = (await (await selectStack(options)).exportStack()) as RollbackState;
  const vm = findRollbackVm(state, options.vm);
  if (vm === undefined)
    throw new UsageError(
      `stack ${options.stack} has no ProxmoxVm named ${options.vm} (by resource name or VM ` +
        "name): rollback only rolls back a VM its stack owns; pass that stack's --stack",
    );
  const snapshot = snapshotNameIn(state, vm.vmid, options.snapshot);
  const connection = options.connection ?? (await commandConnection({}, [options]));
  const { ctx } = await connect(connection, { progress, warn: (m) => progress(`warning: ${m}`) });
  const row = (await ctx.listVms({ fresh: true })).find((r) => r.vmid === vm.vmid);
  if (row === undefined)
    throw new UsageError(`${vmLabel(vm)} (${options.vm}) is gone: there is nothing to roll back`);
  const here = { node: row.node, vmid: row.vmid };
  const mark = readMark((await ctx.api.vmConfig(here.node, here.vmid)).description);
  if (mark?.id !== vm.identityHash)
    throw new UsageError(
      `${vmLabel(here)} does not carry stack ${options.stack}'s mark for ${vm.resourceName} ` +
        `(${mark === undefined ? "no mark" : `its mark names identity ${mark.id}`}): another ` +
        "stack or a person owns it now; rollback refused, nothing changed",
    );
  await rollbackToSnapshot(ctx, here, snapshot, { start: options.start === true });
  progress(
    `${vmLabel(here)}: rolled back to snapshot ${snapshot}; checking what \`up\` will change`,
  );
  const report = await drift({ ...options, onOutput: options.onOutput });
  return { vmid: here.vmid, node: here.node, snapshot, drift: report };
}

const HELP = `Usage: pulumi-proxmox rollback --stack NAME --vm NAME --snapshot NAME [--start] [flags]

Rolls the stack's VM back to a snapshot (PVE stops it first), then shows the drift the next
\`up\` will see. Refuses a VM whose mark names another owner.

  --vm NAME               the ProxmoxVm's resource name, or its VM name
  --snapshot NAME         a VmSnapshot's resource name (of that VM), or the snapshot's PVE name
  --start                 start the VM after the rollback

${STACK_HELP}

${CONNECTION_HELP}`;

export async function rollbackCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values } = parseFlags(argv, {
    ...CONNECTION_FLAGS,
    stack: { type: "string" },
    cwd: { type: "string" },
    backend: { type: "string" },
    vm: { type: "string" },
    snapshot: { type: "string" },
    start: { type: "boolean" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  const selection = {
    stack: required(values.stack, "stack"),
    cwd: values.cwd,
    backend: values.backend,
  };
  const report = await rollback({
    ...selection,
    vm: required(values.vm, "vm"),
    snapshot: required(values.snapshot, "snapshot"),
    start: values.start === true,
    connection: await commandConnection(values, [selection]),
    onProgress: (line) => io.stdout(`pulumi-proxmox: ${line}\n`),
    onOutput: values.quiet === true ? () => undefined : io.stdout,
  });
  io.stdout(formatReport(report.drift));
  return report.drift.status === "error" ? 1 : 0;
}
