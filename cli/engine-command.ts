/**
 * The shared body of `drift`, `up` and `destroy`: select the stack, run one engine operation
 * with the change collector and the progress stream attached, and turn the outcome (or the
 * failure) into a {@link CommandReport}. Never throws: a failure is a report with exit code 1.
 */
import * as path from "node:path";
import type { EngineEvent, PulumiStack, StackSelection } from "./automation";
import { selectStack } from "./automation";
import { ChangeCollector } from "./events";
import { isPlanned, writeReport, type CommandReport } from "./report";

/**
 * The engine's parallelism when the caller sets none. The engine's own default (4 × CPUs) suits
 * CPU-bound steps; a VM's create is a minute of waiting on PVE, so 50 VMs at 8 at a time took
 * 5.5 × the time of one. Load on PVE is bounded by the provider (its `maxConnections`), not by
 * the number of resources in flight.
 */
export const DEFAULT_PARALLEL = 128;

/**
 * The engine options that make a refresh or destroy use the stack's current config. Without the
 * program the engine configures the provider from the inputs recorded at the last `up`, so a
 * moved `proxmox:caCert` file, a rotated token or a new endpoint would not apply: the refresh or
 * destroy reads the old CA path, sends the revoked token, or calls the old address. Running the
 * program (`--run-program`) configures the provider as `up` does.
 */
export const CURRENT_CONFIG = { runProgram: true } as const;

export interface EngineCommandOptions extends StackSelection {
  /**
   * Resource operations the engine runs at once (`--parallel`); default `PULUMI_PARALLEL` when
   * set, else {@link DEFAULT_PARALLEL}.
   */
  readonly parallel?: number | undefined;
  /** Receives the engine's progress output; default: this process's stdout. */
  readonly onOutput?: ((text: string) => void) | undefined;
  /** Receives every engine event, after the report's collector. */
  readonly onEvent?: ((event: EngineEvent) => void) | undefined;
  /** Also write the JSON report to this file. */
  readonly reportFile?: string | undefined;
}

export interface EngineRun {
  readonly changeSummary: Readonly<Record<string, number>>;
  readonly outputs?: Readonly<Record<string, unknown>> | undefined;
  /** Drift the change summary does not show (e.g. pending creates). */
  readonly drift?: boolean | undefined;
}

export interface EngineHooks {
  /** The parallelism to pass to the engine (the caller's, or the default). */
  readonly parallel: number;
  readonly onEvent: (event: EngineEvent) => void;
  readonly onOutput: (text: string) => void;
  /** Something the user must know (pending creates, a recovery done): printed and reported. */
  readonly notice: (text: string) => void;
}

const NO_CHANGE = new Set(["same", "refresh", "read"]);

/** Whether this process has printed the default parallelism yet. */
let parallelSaid = false;

/** Forget that the parallelism was printed (tests run many commands in one process). */
export function resetParallelNotice(): void {
  parallelSaid = false;
}

export async function runEngineCommand(
  command: CommandReport["command"],
  options: EngineCommandOptions,
  run: (stack: PulumiStack, hooks: EngineHooks) => Promise<EngineRun>,
): Promise<CommandReport> {
  const startedAt = new Date();
  const collector = new ChangeCollector({ outcome: command !== "drift" });
  const notices: string[] = [];
  const onOutput = options.onOutput ?? ((text: string) => void process.stdout.write(text));
  const chosen = options.parallel ?? parallelFromEnv({ ...process.env, ...options.env });
  const parallel = chosen ?? DEFAULT_PARALLEL;
  const hooks: EngineHooks = {
    parallel,
    onEvent: (event) => {
      collector.onEvent(event);
      options.onEvent?.(event);
    },
    onOutput,
    notice: (text) => {
      notices.push(text);
      onOutput(`pulumi-proxmox: ${text}\n`);
    },
  };
  const base = { command, stack: options.stack, startedAt: startedAt.toISOString(), notices };
  let report: CommandReport;
  try {
    const stack = await selectStack(options);
    // Said once the stack is there to run on; a preview runs no resource operation; a process
    // that runs several commands says it once.
    if (chosen === undefined && command !== "drift" && !parallelSaid) {
      parallelSaid = true;
      onOutput(
        `pulumi-proxmox: running ${parallel} resource operations at once (--parallel ${parallel}): ` +
          "VM work waits on PVE, not on this machine\n",
      );
    }
    const result = await run(stack, hooks);
    const resources = collector.changes();
    const planned =
      result.drift === true ||
      resources.some(isPlanned) ||
      Object.entries(result.changeSummary).some(([op, n]) => !NO_CHANGE.has(op) && n > 0);
    const status = command !== "drift" ? "ok" : planned ? "drift" : "clean";
    report = {
      ...base,
      status,
      exitCode: status === "drift" ? 2 : 0,
      durationMs: Date.now() - startedAt.getTime(),
      changeSummary: result.changeSummary,
      resources,
      ...(result.outputs === undefined ? {} : { outputs: result.outputs }),
    };
  } catch (error) {
    report = {
      ...base,
      status: "error",
      exitCode: 1,
      durationMs: Date.now() - startedAt.getTime(),
      changeSummary: {},
      resources: collector.changes(),
      error: errorText(error, collector.errors, options),
    };
  }
  if (options.reportFile !== undefined) writeReport(options.reportFile, report);
  return report;
}

/** `PULUMI_PARALLEL`, the engine's own setting, when it holds a whole number of at least 1. */
function parallelFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = Number(env["PULUMI_PARALLEL"]);
  return Number.isInteger(value) && value >= 1 ? value : undefined;
}

/**
 * What went wrong, for the user: a locked stack with the command that frees it; else the
 * engine's own error diagnostics when it sent any; else the `error:` lines of the CLI's output
 * that the automation API packs into its message, or the message's first line.
 */
function errorText(
  error: unknown,
  diagnostics: readonly string[],
  selection: StackSelection,
): string {
  const message = error instanceof Error ? error.message : String(error);
  if (LOCKED.test(message) || diagnostics.some((line) => LOCKED.test(line))) {
    return lockedAdvice(selection);
  }
  if (diagnostics.length > 0) return [...new Set(diagnostics)].join("\n");
  const lines = message
    .split("\n")
    .map((line) => line.trim().replace(/^stderr:\s*/, ""))
    .filter((line) => /^error:/.test(line));
  return lines.length > 0 ? [...new Set(lines)].join("\n") : (message.split("\n")[0] ?? message);
}

/** How the engine says another update holds the stack (file and cloud backends). */
const LOCKED = /the stack is currently locked|Another update is currently in progress/;

/**
 * The locked stack's way out. A lock outlives the run that took it when that run is killed (a
 * CI job cancelled, a SIGKILL): the engine has no chance to release it.
 */
export function lockedAdvice(selection: StackSelection): string {
  const cwd = path.resolve(selection.cwd ?? process.cwd());
  const backend = selection.backend === undefined ? "" : `PULUMI_BACKEND_URL=${selection.backend} `;
  return (
    `stack ${selection.stack} is locked: another run is using it, or a run that was killed left ` +
    "its lock behind. If no other pulumi or pulumi-proxmox run is working on this stack, run\n" +
    `  ${backend}pulumi cancel --yes --stack ${selection.stack} --cwd ${cwd}\n` +
    "It removes the lock and changes nothing on Proxmox. Then run this command again: VMs a " +
    "killed `up` left are kept as pending creates, which `pulumi-proxmox up` resumes and " +
    "`pulumi-proxmox destroy` deletes."
  );
}
