import { spawn } from "node:child_process";
import * as fs from "node:fs";

/**
 * Processes of engine runs: starting `pulumi` so that a test can kill it the way a crash does,
 * and finding (and killing) what a run left behind, through /proc. The engine starts every
 * plugin in a process group of its own, so killing `pulumi` or even its group does not reach
 * them: only their environment, inherited from the test's engine env, ties them to the run.
 */

export interface PulumiRun {
  /** The `pulumi` process; SIGKILL it alone to model the engine dying. */
  readonly pid: number;
  /** SIGKILLs the run's process group: `pulumi` and whatever it has not moved to a group of its own. */
  kill(): void;
  /** Settles when `pulumi` has exited. */
  readonly exited: Promise<void>;
}

/** Starts `pulumi <args>` in its own process group, output discarded. */
export function startPulumi(args: string[], dir: string, env: NodeJS.ProcessEnv): PulumiRun {
  const child = spawn("pulumi", [...args, "--non-interactive", "--color=never"], {
    cwd: dir,
    env,
    detached: true,
    stdio: "ignore",
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`pulumi ${args.join(" ")} did not start`);
  return {
    pid,
    kill: () => killGroup(pid),
    exited: new Promise<void>((resolve) => child.once("exit", () => resolve())),
  };
}

export interface ProcessInfo {
  readonly pid: number;
  readonly pgid: number;
  readonly cmdline: string;
  readonly cwd: string;
  readonly environ: readonly string[];
}

/**
 * Live processes (not this one, not zombies) whose environment or command line contains
 * `marker`, or whose cwd is `marker` or under it. A run's marker: its PULUMI_HOME, which the
 * engine, the language host, the program and the dynamic provider all inherit.
 */
export function leftoverProcesses(marker: string): ProcessInfo[] {
  return findProcesses(
    (p) =>
      p.cmdline.includes(marker) ||
      p.environ.some((entry) => entry.includes(marker)) ||
      p.cwd === marker ||
      p.cwd.startsWith(`${marker}/`),
  );
}

export function findProcesses(matches: (process: ProcessInfo) => boolean): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const info = processInfo(pid);
    if (info && matches(info)) found.push(info);
  }
  return found;
}

/**
 * SIGKILLs the process groups of `processes` and returns what it killed. A process in this
 * process's own group is killed alone, so the test runner never kills itself.
 */
export function killProcesses(processes: readonly ProcessInfo[]): ProcessInfo[] {
  const ownGroup = processInfo(process.pid)?.pgid;
  for (const p of processes) {
    if (p.pgid === ownGroup || p.pgid <= 1) signal(p.pid);
    else killGroup(p.pgid);
  }
  return [...processes];
}

/** SIGKILLs a process group; a group that is already gone is fine. */
export function killGroup(pgid: number): void {
  signal(-pgid);
}

/** Waits until `condition` holds, polling; throws `describe()` after `timeoutMs`. */
export async function until(
  what: string,
  condition: () => boolean,
  timeoutMs = 60_000,
  describe: () => string = () => "",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until no process of the run marked `marker` is left; throws naming the ones still
 * running. The deadline is generous: the engine-gone watches check every second.
 */
export async function untilNoneLeft(marker: string, timeoutMs = 15_000): Promise<void> {
  let left: ProcessInfo[] = [];
  await until(
    "every process of the run to exit",
    () => (left = leftoverProcesses(marker)).length === 0,
    timeoutMs,
    () => `; still running:${describeProcesses(left)}`,
  );
}

export function describeProcesses(processes: readonly ProcessInfo[]): string {
  return processes.map((p) => `\n  pid ${p.pid} (group ${p.pgid}): ${p.cmdline}`).join("");
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // After the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return undefined;
    const split = (file: string) =>
      fs.readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0").filter(Boolean);
    return {
      pid,
      pgid: Number(fields[2]),
      cmdline: split("cmdline").join(" "),
      cwd: fs.readlinkSync(`/proc/${pid}/cwd`),
      environ: split("environ"),
    };
  } catch {
    // Gone meanwhile, or not ours to read.
    return undefined;
  }
}
