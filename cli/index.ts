#!/usr/bin/env node
/**
 * `pulumi-proxmox`: the CI entry points (drift, up, destroy) on Pulumi's automation API, and the
 * Proxmox-side tools (doctor, sweep). Every subcommand is also a function exported here.
 */
import { STACK_HELP, STACK_FLAGS, parseFlags, processIo, required, type Io } from "./args";
import { destroy } from "./destroy";
import { doctorCommand } from "./doctor-command";
import { drift } from "./drift";
import type { EngineCommandOptions } from "./engine-command";
import { importCommand } from "./import";
import { formatReport, UsageError, type CommandReport, type ExitCode } from "./report";
import { rollbackCommand } from "./rollback";
import { sweepCommand } from "./sweep";
import { up } from "./up";

export { drift, type DriftOptions } from "./drift";
export { up, type UpOptions } from "./up";
export { destroy, type DestroyOptions } from "./destroy";
export { doctor, type DoctorOptions, type DoctorReport, type DoctorCheck } from "./doctor";
export { sweep, type SweepOptions, type SweepReport, type SweepItem } from "./sweep";
export { rollback, type RollbackOptions, type RollbackReport } from "./rollback";
export type { EngineCommandOptions } from "./engine-command";
export { parseConnectionConfig, type ConnectionConfig } from "../provider/entry";
export type { StackSelection, AutomationModule } from "./automation";
export {
  formatReport,
  UsageError,
  type CommandReport,
  type ExitCode,
  type PropertyChange,
  type ResourceChange,
} from "./report";

const USAGE = `Usage: pulumi-proxmox <command> [flags]

Commands:
  drift     preview --refresh a stack: exit 0 clean, 2 drift found, 1 error
  up        refresh, then pulumi up, for CI: exit 0 ok, 1 error
  destroy   pulumi destroy for CI: exit 0 ok, 1 error
  doctor    check a Proxmox endpoint, token, privileges, template and storages: exit 0 or 1
  sweep     list (or --apply: delete) marked VMs and seed ISOs no given stack owns
  import    print the ProxmoxVm declaration (adopt: { vmid }) of an existing VM, or of many
  rollback  roll a stack's VM back to a snapshot, then show the drift \`up\` will see

Run \`pulumi-proxmox <command> --help\` for its flags. Docs: docs/cli.md`;

const ENGINE_HELP: Record<string, string> = {
  drift:
    "Usage: pulumi-proxmox drift --stack NAME [flags]\n\nRuns `pulumi preview --refresh`; exit 0 clean, 2 drift found, 1 error.",
  up:
    "Usage: pulumi-proxmox up --stack NAME [--no-refresh] [flags]\n\nRuns `pulumi up --refresh`: what changed outside Pulumi is put back " +
    "(--no-refresh trusts the state as the last run left it); exit 0 ok, 1 error.\n" +
    "Resumes the VMs an interrupted up left as pending creates (no adopt needed).",
  destroy:
    "Usage: pulumi-proxmox destroy --stack NAME [--refresh] [flags]\n\nRuns `pulumi destroy`; exit 0 ok, 1 error.\n" +
    "Also deletes the VMs an interrupted up left as pending creates.",
};

/** Runs one command line (without `node` and the script); resolves with the exit code. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<ExitCode> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "drift":
      case "up":
      case "destroy":
        return await engineCommand(command, rest, io);
      case "doctor":
        return await doctorCommand(rest, io);
      case "sweep":
        return await sweepCommand(rest, io);
      case "import":
        return await importCommand(rest, io);
      case "rollback":
        return await rollbackCommand(rest, io);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    }
  } catch (error) {
    io.stderr(`pulumi-proxmox: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function engineCommand(
  command: "drift" | "up" | "destroy",
  argv: readonly string[],
  io: Io,
): Promise<ExitCode> {
  const { values } = parseFlags(argv, {
    ...STACK_FLAGS,
    refresh: { type: "boolean" },
    "no-refresh": { type: "boolean" },
    parallel: { type: "string" },
  });
  if (command === "drift" && (values.refresh ?? values["no-refresh"]) !== undefined) {
    throw new UsageError("drift always refreshes: drop --refresh / --no-refresh");
  }
  if (values.refresh === true && values["no-refresh"] === true) {
    throw new UsageError("--refresh and --no-refresh contradict each other: pass one");
  }
  if (command === "destroy" && values["no-refresh"] !== undefined) {
    throw new UsageError("destroy refreshes only with --refresh: drop --no-refresh");
  }
  if (values.help === true) {
    io.stdout(`${ENGINE_HELP[command] ?? ""}\n\n${STACK_HELP}\n`);
    return 0;
  }
  const options: EngineCommandOptions & { refresh?: boolean } = {
    stack: required(values.stack, "stack"),
    cwd: values.cwd,
    backend: values.backend,
    reportFile: values.report,
    onOutput: values.quiet === true ? () => undefined : io.stdout,
    // up refreshes unless told not to; destroy only when told to.
    refresh: command === "up" ? values["no-refresh"] !== true : values.refresh === true,
    parallel: values.parallel === undefined ? undefined : parallelFlag(values.parallel),
  };
  const run: Record<typeof command, (o: typeof options) => Promise<CommandReport>> = {
    drift,
    up,
    destroy,
  };
  const report = await run[command](options);
  // A blank line between the engine's progress and the summary; none when there was no progress.
  const gap = values.quiet === true ? "" : "\n";
  (report.status === "error" ? io.stderr : io.stdout)(`${gap}${formatReport(report)}`);
  return report.exitCode;
}

function parallelFlag(value: string): number {
  const parallel = Number(value);
  if (!Number.isInteger(parallel) || parallel < 1) {
    throw new UsageError(`--parallel must be a whole number of at least 1, got ${value}`);
  }
  return parallel;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
