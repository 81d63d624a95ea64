/**
 * `pulumi-proxmox sweep`: lists the VMs, seed ISOs, templates and downloaded images that carry
 * this package's mark but that no given stack's state owns — the leftovers of killed runs or lost
 * state — and the snapshots a killed protected update left on owned VMs, and, with `--apply`,
 * removes them with the provider's own ordered deletes: snapshots, VMs (stop → seeds →
 * destroy), then templates (refused while linked clones exist), then images and
 * seeds nothing references. A VM or template without the mark, or whose identity a given state
 * holds, is never touched.
 */
import { connect, type ConnectionConfig } from "../provider/entry";
import { CONNECTION_FLAGS, CONNECTION_HELP, parseFlags, type Io } from "./args";
import type { StackSelection } from "./automation";
import { connectionFlags } from "./connection";
import { UsageError, writeReport, type ExitCode } from "./report";
import { deleteOrphans, listOrphans } from "./sweep-apply";
import { clusterLabel, sweepClusters, type SweepCluster } from "./sweep-clusters";
import { findOrphans } from "./sweep-find";
import { readStates, type Deployment } from "./sweep-owners";
import type { SweepItem, SweepReport } from "./sweep-items";

export type { SweepItem, SweepReport } from "./sweep-items";

export interface SweepOptions {
  readonly connection: ConnectionConfig;
  /** The stacks whose states own VMs; at least one stack or state file is required. */
  readonly stacks: readonly StackSelection[];
  /** Files written by `pulumi stack export`, for stacks not reachable from here. */
  readonly stateFiles?: readonly string[] | undefined;
  /** Delete the orphans (default: only list them). */
  readonly apply?: boolean | undefined;
  /** Budget per PVE task (stop, seed delete, destroy); default 5 minutes. */
  readonly taskMs?: number | undefined;
  /** Progress lines; default: none. */
  readonly onProgress?: ((line: string) => void) | undefined;
  /** Only these identities (and their seeds) are considered: `destroy` cleans its own run's. */
  readonly only?: ReadonlySet<string> | undefined;
  /** The states of the stacks and files when already read: a sweep of many clusters reads them once. */
  readonly states?: readonly Deployment[] | undefined;
}

const NO_STATE =
  "sweep needs at least one --stack or --state-file: without a state, every marked VM would look orphaned";

const TASK_MS = 5 * 60_000;

/** Reads the states, finds what they do not own, and lists it or (`apply`) deletes it. */
export async function sweep(options: SweepOptions): Promise<SweepReport> {
  if (options.stacks.length === 0 && (options.stateFiles?.length ?? 0) === 0) {
    throw new UsageError(NO_STATE);
  }
  const progress = options.onProgress ?? (() => undefined);
  const { api, ctx } = await connect(options.connection, {
    progress,
    warn: (message) => progress(`warning: ${message}`),
  });
  const orphans = await findOrphans(api, options, options.only);
  const apply = options.apply === true;
  const items = apply
    ? await deleteOrphans(ctx, orphans, options.taskMs ?? TASK_MS)
    : listOrphans(orphans);
  return {
    applied: apply,
    ownedIdentities: orphans.ownedIdentities,
    ownedVms: orphans.ownedVms,
    items,
    exitCode: items.some((item: SweepItem) => item.action === "failed") ? 1 : 0,
  };
}

/** One cluster's part of a sweep: which cluster, and what was found (or done) there. */
type SweepClusterReport = NonNullable<SweepReport["clusters"]>[number];

/** Each cluster's sweep in turn; the report sums them, each row naming its provider. */
async function sweepEach(
  clusters: readonly SweepCluster[],
  options: Omit<SweepOptions, "connection">,
  io: Io,
): Promise<SweepReport> {
  const parts: SweepClusterReport[] = [];
  for (const cluster of clusters) {
    // The heading first: the progress of a sweep with --apply is this cluster's.
    io.stdout(`${parts.length === 0 ? "" : "\n"}== ${clusterLabel(cluster)}\n`);
    const part = await sweep({
      ...options,
      connection: cluster.connection,
      onProgress: (line) => io.stdout(`pulumi-proxmox: ${line}\n`),
    });
    const provider = cluster.providers[0] ?? "";
    io.stdout(formatSweep(part));
    parts.push({
      ...part,
      items: part.items.map((item) => ({ ...item, provider })),
      providers: cluster.providers,
      endpoint: cluster.connection.origin,
    });
  }
  return {
    applied: options.apply === true,
    ownedIdentities: Math.max(0, ...parts.map((p) => p.ownedIdentities)),
    ownedVms: parts.reduce((sum, p) => sum + p.ownedVms, 0),
    items: parts.flatMap((p) => p.items),
    clusters: parts,
    exitCode: parts.some((p) => p.exitCode !== 0) ? 1 : 0,
  };
}

function formatSweep(report: SweepReport): string {
  const lines = [
    `Owned by the given stacks: ${report.ownedIdentities} identities; ${report.ownedVms} marked VM(s) on this cluster left alone.`,
  ];
  if (report.items.length === 0) lines.push("No orphans.");
  else {
    const width = Math.max(...report.items.map((i) => i.target.length));
    const kinds = Math.max(4, ...report.items.map((i) => i.kind.length));
    lines.push(
      "",
      `${"ACTION".padEnd(8)}  ${"KIND".padEnd(kinds)}  ${"TARGET".padEnd(width)}  DETAIL`,
    );
    for (const i of report.items) {
      lines.push(
        `${i.action.padEnd(8)}  ${i.kind.padEnd(kinds)}  ${i.target.padEnd(width)}  ${i.detail ?? ""}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

const HELP = `Usage: pulumi-proxmox sweep [--cwd DIR] --stack NAME [--stack NAME ...] [--provider NAME] [--apply]

Lists VMs, seed ISOs, templates and downloaded images that carry pulumi-proxmox's mark but that
no given stack owns, and snapshots an interrupted rollbackOnFailure update left on owned VMs;
--apply deletes them (snapshots, VMs, then templates without linked clones, then images and
seeds). Give EVERY stack that manages VMs or templates on these clusters.

Sweeps each cluster of the given stacks in turn, headed by its provider and endpoint: the stack
config's (provider default) and each explicit Provider's, as the last \`pulumi up\` recorded its
settings in the state. The connection flags apply to the stack config's cluster, or with
--provider to that provider's.

  --stack NAME            a stack whose state owns VMs or templates (repeatable; uses the --cwd before it)
  --cwd DIR               the program directory of the --stack flags that follow
  --state-file FILE       a \`pulumi stack export\` file (repeatable)
  --backend URL           the state backend for every --stack
  --provider NAME         only the cluster of the --stack's Provider NAME (\`default\`: the stack config's)
  --apply                 delete the orphans (default: dry run)
  --report FILE           also write the JSON report there

${CONNECTION_HELP}`;

export async function sweepCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, tokens } = parseFlags(argv, {
    ...CONNECTION_FLAGS,
    stack: { type: "string", multiple: true },
    cwd: { type: "string", multiple: true },
    provider: { type: "string" },
    "state-file": { type: "string", multiple: true },
    backend: { type: "string" },
    apply: { type: "boolean" },
    report: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  // Each --stack reads its state from the program directory given before it.
  const stacks: StackSelection[] = [];
  let cwd: string | undefined;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (token.name === "cwd") cwd = token.value;
    if (token.name === "stack" && token.value !== undefined) {
      stacks.push({ stack: token.value, cwd, backend: values.backend });
    }
  }
  if (stacks.length === 0 && (values["state-file"]?.length ?? 0) === 0) {
    throw new UsageError(NO_STATE);
  }
  const flags = connectionFlags(values);
  const sources = { stacks, stateFiles: values["state-file"] };
  const states = await readStates(sources);
  const clusters = await sweepClusters(flags, stacks, states, process.env, values.provider);
  const report = await sweepEach(
    clusters,
    { ...sources, states, apply: values.apply === true },
    io,
  );
  if (report.applied !== true && report.items.length > 0) {
    io.stdout("\nDry run: nothing was deleted. Run again with --apply to delete these.\n");
  }
  if (values.report !== undefined) writeReport(values.report, report);
  return report.exitCode;
}
