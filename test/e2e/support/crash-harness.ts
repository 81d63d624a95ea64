/**
 * Crash points: run one `pulumi` operation against the simulator, kill the whole process tree
 * (engine and provider) right after the simulator answered request k, run the recovery a user
 * would run, and judge what is left. The requests are enumerated from a clean run's request
 * log, so request kinds that later work adds become crash points by themselves.
 *
 * Shared by test/reliability/crash-points.e2e.test.ts (a sample) and bench/crash-points.ts (all).
 * The process helpers here are deliberately minimal (marker in the environment, /proc walk).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { startSimulator, type RequestLogEntry, type Simulator } from "../../../simulator";
import { BIN, runBin } from "../../cli/support";
import { serveImages } from "../../simulator/support/image-server";
import { IMAGE, SCENARIOS, type Operation } from "./crash-scenarios";
import { engineEnv, pulumi, type CliResult } from "./engine";
import { inventory, unexpected, type Expected } from "./inventory";
import { proxmoxStack } from "./proxmox-stack";

export { OPERATIONS, type Operation } from "./crash-scenarios";

/** Environment variable every process of one crash run inherits: how its tree is found. */
const MARKER = "PULUMI_PROXMOX_CRASH_RUN";

/** Short tasks keep a run quick; a listing lag keeps the listing's staleness on the path. */
const SIM_OPTIONS = { defaultTaskMs: 100, guestBootMs: 200, listingLagMs: 300 } as const;

/** `GET /nodes/pve1/tasks/UPID:…:qmclone:…/status` → `GET /nodes/{node}/tasks/{qmclone}/status`. */
export function requestKind(entry: Pick<RequestLogEntry, "method" | "path">): string {
  const folded = entry.path
    .replace(/\/UPID:[^/]*?:[^:/]*:[^:/]*:[^:/]*:([^:/]+):[^/]*/, "/{$1}")
    .replace(/\/qemu\/\d+/, "/qemu/{vmid}")
    .replace(/\/snapshot\/[^/]+/, "/snapshot/{snapname}")
    .replace(/^\/nodes\/[^/]+/, "/nodes/{node}")
    .replace(/\/content\/.+$/, "/content/{volid}");
  return `${entry.method} ${folded}`;
}

/** One crash point: the `occurrence`-th request of `kind` in the operation (k is 1-based). */
export interface CrashPoint {
  readonly operation: Operation;
  readonly k: number;
  readonly kind: string;
  readonly occurrence: number;
  /** The request as the clean run sent it, e.g. `POST /nodes/pve1/qemu/9000/clone`. */
  readonly request: string;
}

export type Outcome = "ok" | "leak" | "duplicate" | "unmanageable" | "not reached" | string;

export interface CrashResult extends CrashPoint {
  readonly outcome: Outcome;
  readonly detail: string;
}

/** Runs `operation` once without a crash and lists its requests as crash points. */
export async function crashPoints(operation: Operation): Promise<CrashPoint[]> {
  const log: RequestLogEntry[] = [];
  await runScenario(operation, (entry) => {
    log.push(entry);
    return false;
  });
  const seen = new Map<string, number>();
  return log.map((entry, index) => {
    const kind = requestKind(entry);
    const occurrence = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, occurrence);
    return { operation, k: index + 1, kind, occurrence, request: `${entry.method} ${entry.path}` };
  });
}

/** Kills the run right after the simulator answered `point`, recovers, and judges the result. */
export async function runCrashPoint(point: CrashPoint): Promise<CrashResult> {
  return crashAt(point.operation, (kind, occurrence) => {
    return kind === point.kind && occurrence === point.occurrence;
  });
}

/**
 * Kills the run right after the first request whose kind matches `pattern`: one run, where
 * {@link crashPoints} then {@link runCrashPoint} take two (CI's samples).
 */
export async function runFirstCrashPoint(
  operation: Operation,
  pattern: RegExp,
): Promise<CrashResult> {
  return crashAt(operation, (kind) => pattern.test(kind));
}

async function crashAt(
  operation: Operation,
  isPoint: (kind: string, occurrence: number) => boolean,
): Promise<CrashResult> {
  const seen = new Map<string, number>();
  let point: CrashPoint | undefined;
  let k = 0;
  const verdict = await runScenario(operation, (entry) => {
    k++;
    const kind = requestKind(entry);
    const occurrence = (seen.get(kind) ?? 0) + 1;
    seen.set(kind, occurrence);
    if (point !== undefined || !isPoint(kind, occurrence)) return false;
    point = { operation, k, kind, occurrence, request: `${entry.method} ${entry.path}` };
    return true;
  });
  if (point === undefined) {
    const none = { operation, k: 0, kind: "", occurrence: 0, request: "" };
    return { ...none, outcome: "not reached", detail: "the run ended before it" };
  }
  return { ...point, ...verdict };
}

/**
 * Sets up the scenario on a fresh simulator and backend, runs the command with `answered` called
 * on every answer (true = kill the tree now), then recovers and judges. Without a kill, the
 * "recovery" is a no-op re-run, so a clean run is judged too.
 */
async function runScenario(
  operation: Operation,
  answered: (entry: RequestLogEntry) => boolean,
): Promise<{ outcome: Outcome; detail: string }> {
  const scenario = SCENARIOS[operation];
  const images = await serveImages({ [IMAGE.path]: IMAGE.bytes });
  const sim = await startSimulator({ ...SIM_OPTIONS, ...scenario.simOptions });
  const seeded = new Set(sim.model.vms.keys());
  const marker = randomUUID();
  const engine = engineEnv({ [MARKER]: marker });
  try {
    const base = scenario.base(images.url);
    const dir = await proxmoxStack(`crash-${operation}`, base, sim, engine);
    const run = (args: string[]) => pulumi(args, dir, engine.env);
    if (scenario.setup) {
      const up = await run(["up", "--yes", "--skip-preview"]);
      if (up.code !== 0) throw new Error(`setup up failed: ${firstError(up)}`);
    }
    scenario.drift?.(sim);
    fs.writeFileSync(path.join(dir, "index.js"), scenario.target(images.url));

    const tree = new ProcessTree(marker);
    const child = spawn(
      "pulumi",
      [...scenario.command, "--yes", "--skip-preview", "--non-interactive"],
      {
        cwd: dir,
        env: engine.env,
        detached: true,
        stdio: "ignore",
      },
    );
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    let killed = false;
    const stop = sim.onResponse((entry) => {
      if (!killed && answered(entry)) {
        killed = true;
        if (child.pid !== undefined) killGroup(child.pid);
        tree.killAll();
      }
    });
    await exited;
    stop();
    tree.stopWatching();
    await tree.gone();

    const recovery = await recover(scenario.command, run, dir, engine.env);
    if (recovery.code !== 0) return { outcome: firstError(recovery), detail: "recovery failed" };
    const destroyed = scenario.command[0] === "destroy";
    return await judge(sim, seeded, scenario.expected, destroyed, run, engine.env, dir, tree);
  } finally {
    await sim.close();
    await images.close();
    engine.cleanup();
  }
}

/**
 * The recovery a user runs, as the guide documents it: `pulumi cancel` if the killed run left
 * the stack locked, then `pulumi-proxmox up` (or `destroy`) with the same flags. That entry
 * reads the stack's pending creates, so a VM killed between "marked complete" and the engine's
 * checkpoint is resumed instead of refused.
 */
async function recover(
  command: readonly string[],
  run: (args: string[]) => Promise<CliResult>,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  const [verb, ...flags] = command;
  const viaBin = () => runBin([verb ?? "up", "--stack", "dev", ...flags], dir, env);
  let result = await viaBin();
  if (result.code !== 0 && /locked/i.test(result.stderr + result.stdout)) {
    await run(["cancel", "--yes"]);
    result = await viaBin();
  }
  return result;
}

async function judge(
  sim: Simulator,
  seeded: ReadonlySet<number>,
  expected: Expected,
  destroyed: boolean,
  run: (args: string[]) => Promise<CliResult>,
  env: NodeJS.ProcessEnv,
  dir: string,
  tree: ProcessTree,
): Promise<{ outcome: Outcome; detail: string }> {
  const recovered = unexpected(inventory(sim, seeded), expected);
  if (recovered !== undefined) return recovered;

  const checks = [["refresh", "--yes", "--skip-preview"], ["preview"]];
  if (!destroyed) checks.push(["destroy", "--yes", "--skip-preview"]);
  for (const args of checks) {
    const result = await run(args);
    if (result.code !== 0) {
      return { outcome: "unmanageable", detail: `${args[0]}: ${firstError(result)}` };
    }
  }
  const left = unexpected(inventory(sim, seeded), { vms: 0, templates: 0 });
  if (left !== undefined) return { outcome: "leak", detail: `after destroy: ${left.detail}` };
  const sweep = await sweepFinds(sim, env, dir);
  if (sweep !== "") return { outcome: "leak", detail: `sweep: ${sweep}` };
  await tree.gone(10_000);
  const processes = tree.scan();
  if (processes.length > 0)
    return { outcome: "leak", detail: `processes left: ${processes.join(", ")}` };
  return { outcome: "ok", detail: "" };
}

/** What `pulumi-proxmox sweep` lists for the stack (empty when it finds nothing). */
async function sweepFinds(sim: Simulator, env: NodeJS.ProcessEnv, dir: string): Promise<string> {
  const report = path.join(dir, "sweep.json");
  const result = await runBin(["sweep", "--cwd", dir, "--stack", "dev", "--report", report], dir, {
    ...env,
    PROXMOX_VE_ENDPOINT: sim.url,
    PROXMOX_VE_API_TOKEN: sim.apiToken,
    PROXMOX_VE_CA_CERT: sim.caCertPem,
  });
  if (result.code !== 0) return `sweep failed (${BIN}): ${result.stderr.trim()}`;
  const items = (JSON.parse(fs.readFileSync(report, "utf8")) as { items?: unknown[] }).items ?? [];
  return items.length === 0 ? "" : JSON.stringify(items);
}

/** The first `error:` line of a failed CLI run, or its last line. */
export function firstError(result: CliResult): string {
  const lines = `${result.stdout}\n${result.stderr}`.split("\n").map((l) => l.trim());
  const error = lines.find((l) => /^error:|\berror:/.test(l) && !/^error: update failed$/.test(l));
  return (error ?? lines.filter(Boolean).pop() ?? `exit ${result.code}`).slice(0, 160);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * The processes of one crash run, found by the marker in their environment (pulumi starts
 * plugins in their own process group, so the engine's group alone misses the provider). A
 * watcher keeps the list fresh, so the kill itself is a few syscalls, not a /proc walk.
 */
class ProcessTree {
  #known = new Set<number>();
  readonly #timer: NodeJS.Timeout;

  constructor(private readonly marker: string) {
    this.#timer = setInterval(() => {
      for (const pid of this.scan()) this.#known.add(pid);
    }, 100);
  }

  /** Pids whose environment carries the marker. */
  scan(): number[] {
    const needle = `${MARKER}=${this.marker}`;
    const found: number[] = [];
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      try {
        const environ = fs.readFileSync(`/proc/${entry}/environ`, "latin1");
        if (environ.split("\0").includes(needle)) found.push(Number(entry));
      } catch {
        // Gone, or not ours.
      }
    }
    return found;
  }

  /** SIGKILL to every known process and its group, then to any the watcher had not seen yet. */
  killAll(): void {
    for (const pid of this.#known) this.#kill(pid);
    for (const pid of this.scan()) this.#kill(pid);
  }

  #kill(pid: number): void {
    const pgid = processGroup(pid);
    if (pgid !== undefined && pgid !== process.pid) killGroup(pgid);
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  stopWatching(): void {
    clearInterval(this.#timer);
  }

  /** Waits until no marked process is left (or `timeoutMs` passed); never throws. */
  async gone(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.scan().some((pid) => !isZombie(pid)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

function processGroup(pid: number): number | undefined {
  const pgid = Number(statFields(pid)?.[2]);
  return Number.isInteger(pgid) && pgid > 1 ? pgid : undefined;
}

function isZombie(pid: number): boolean {
  return statFields(pid)?.[0] === "Z";
}

/** The table the bench and the test print: operation, k, request, outcome. */
export function formatTable(results: readonly CrashResult[]): string {
  const rows = results.map((r) => [
    r.operation,
    String(r.k),
    r.request,
    r.outcome === "ok" ? "ok" : `${r.outcome}${r.detail ? ` (${r.detail})` : ""}`,
  ]);
  const header = ["OPERATION", "K", "REQUEST", "OUTCOME"];
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

/**
 * The CI sample of an operation's points: the first request matching each pattern (method +
 * folded path), plus the last request when `last` is set. Patterns that match nothing are
 * skipped, so a kind that later work removes does not break the sample.
 */
export function samplePoints(
  points: readonly CrashPoint[],
  patterns: readonly RegExp[],
  last: boolean,
): CrashPoint[] {
  const picked = new Set<CrashPoint>();
  for (const pattern of patterns) {
    const point = points.find((p) => pattern.test(p.kind));
    if (point !== undefined) picked.add(point);
  }
  const final = points[points.length - 1];
  if (last && final !== undefined) picked.add(final);
  return [...picked].sort((a, b) => a.k - b.k);
}
