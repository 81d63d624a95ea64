/**
 * The fault matrix: every request kind an operation makes (from a clean run's request log) ×
 * a set of faults, each injected once, through the provider's real runtime over HTTP. A row
 * checks the error's class against the documented contract (the table in docs/errors.md, parsed
 * in faults.ts, never classify() itself), the message, and that a fault-free re-run converges with
 * nothing leaked. Shared by test/reliability/fault-matrix.int.test.ts and bench/faults.ts.
 */
import type { OperationContext } from "../../../provider/pve/context";
import { buildContext } from "../../../provider/pve/connection";
import { startSimulator, type Simulator } from "../../../simulator";
import { requestKind } from "../../e2e/support/crash-harness";
import { IMAGE } from "../../e2e/support/crash-scenarios";
import { inventory, unexpected } from "../../e2e/support/inventory";
import { serveImages } from "../../simulator/support/image-server";
import { OPERATION_SPECS, type FaultOperation, type Subject } from "./fault-operations";
import { documentedRetried, type DocumentedRetry, type Fault } from "./faults";

export { FAULT_OPERATIONS, type FaultOperation } from "./fault-operations";
export {
  documentedRetried,
  documentedRetries,
  FAULTS,
  requestName,
  type DocumentedRetry,
  type Fault,
} from "./faults";

/** The error code each fault must surface as: what PVE (or the network) sends, per docs/errors.md. */
const FAULT_CODE: Record<Fault, string> = {
  "401": "AUTH",
  "403": "FORBIDDEN",
  "500": "SERVER",
  "595": "UNAVAILABLE",
  "596": "UNAVAILABLE",
  timeout: "TIMEOUT",
  reset: "NETWORK",
  "lost answer": "NETWORK",
  "task failure": "TASK_FAILED",
};

/** The client's default request timeout (HttpProxmoxApi) plus a margin: the "timeout" fault. */
const TIMEOUT_DELAY_MS = 62_000;

const PRIVILEGE = "VM.Allocate";

/** One request kind of an operation, or one task type (for the task-failure fault). */
export interface FaultTarget {
  readonly operation: FaultOperation;
  readonly kind: string;
  /** For a task target (kind `task {qmclone}`): the task type, which `failTasks` matches. */
  readonly taskType: string | undefined;
  /** The path as the clean run sent it: which node and VM the message must name. */
  readonly example: string;
}

export interface FaultRow extends FaultTarget {
  readonly fault: Fault;
  readonly expectedCode: string;
  readonly expectedRetried: boolean;
  /** What happened: `failed CODE`, `retried`, `tolerated`, or `not reached`. */
  readonly observed: string;
  /** Empty when the row holds; otherwise every broken check. */
  readonly problems: readonly string[];
}

interface Rig {
  readonly sim: Simulator;
  readonly ctx: OperationContext;
  /** The VMIDs the simulator started with (its templates). */
  readonly seeded: ReadonlySet<number>;
  readonly imagesUrl: string;
  close(): Promise<void>;
}

async function rig(operation: FaultOperation): Promise<Rig> {
  const images = await serveImages({ [IMAGE.path]: IMAGE.bytes });
  const sim = await startSimulator({ listingLagMs: 100, ...OPERATION_SPECS[operation].simOptions });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  const ctx = buildContext({ get: (key) => config[key] });
  return {
    sim,
    ctx: { ...ctx, progress: () => undefined, warn: () => undefined },
    seeded: new Set(sim.model.vms.keys()),
    imagesUrl: images.url,
    close: async () => {
      await sim.close();
      await images.close();
    },
  };
}

/** The request kinds (and task types) a clean run of `operation` makes, in first-use order. */
export async function faultTargets(operation: FaultOperation): Promise<FaultTarget[]> {
  const { sim, ctx, imagesUrl, close } = await rig(operation);
  const spec = OPERATION_SPECS[operation];
  try {
    const state = await spec.prepare(ctx, imagesUrl);
    sim.clearRequestLog();
    const tasksBefore = new Set(sim.model.tasks.keys());
    await spec.run(ctx, imagesUrl, state);
    const first = new Map<string, string>();
    for (const entry of sim.requestLog)
      if (!first.has(requestKind(entry))) first.set(requestKind(entry), entry.path);
    const requests = [...first].map(([kind, example]) => ({
      operation,
      kind,
      example,
      taskType: undefined,
    }));
    // Task waits share the node's task list, so a task type has no request of its own: the
    // task-failure targets are the task types the clean run started.
    const tasks = new Map<string, string>();
    for (const task of sim.model.tasks.values()) {
      if (!tasksBefore.has(task.upid) && !tasks.has(task.type)) {
        const vmid = /^\d+$/.test(task.id) ? `/qemu/${task.id}` : "";
        tasks.set(task.type, `/nodes/${task.node}${vmid}`);
      }
    }
    const taskTargets = [...tasks].map(([type, example]) => ({
      operation,
      kind: `task {${type}}`,
      example,
      taskType: type,
    }));
    return [...requests, ...taskTargets];
  } finally {
    await close();
  }
}

/** `GET /nodes/{node}/qemu/{vmid}/status/current` → its method and a path regex. */
function matchOf(kind: string): { method: string; path: RegExp } {
  const [method = "GET", pattern = ""] = kind.split(" ");
  const source = pattern
    .split(/(\{[a-z]+\})/)
    .map((part) => {
      if (part === "{node}") return "[^/]+";
      if (part === "{vmid}") return "\\d+";
      if (part === "{volid}") return ".+";
      if (part === "{snapname}") return "[^/]+";
      if (/^\{[a-z]+\}$/.test(part)) return `UPID:[^/]*:${part.slice(1, -1)}:[^/]*`;
      return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
    })
    .join("");
  return { method, path: new RegExp(`^${source}$`) };
}

function inject(sim: Simulator, target: FaultTarget, fault: Fault, vmid: number): void {
  const match = matchOf(target.kind);
  switch (fault) {
    case "401":
      return sim.faults.failRequests(match, 401, "authentication failure");
    case "403":
      return sim.faults.failRequests(
        match,
        403,
        `Permission check failed (/vms/${vmid}, ${PRIVILEGE})`,
      );
    case "500":
      return sim.faults.failRequests(match, 500, "simulated failure");
    case "595":
      return sim.faults.failRequests(match, 595, "No route to host");
    case "596":
      return sim.faults.failRequests(match, 596, "Connection timed out");
    case "timeout":
      return sim.faults.delayRequests(match, TIMEOUT_DELAY_MS);
    case "reset":
      return sim.faults.resetRequests(match);
    case "lost answer":
      return sim.faults.loseAnswers(match);
    case "task failure":
      return sim.faults.failTasks({ type: target.taskType ?? "" }, "simulated task failure");
  }
}

/** Whether a fault applies to a target: task failures to the task types, the others to requests. */
export function applies(target: FaultTarget, fault: Fault): boolean {
  return (fault === "task failure") === (target.taskType !== undefined);
}

interface Coded {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The typed error inside a thrown value (a VmInitError wraps it as `cause`). */
function typedError(error: unknown): { code: string; message: string } | undefined {
  for (
    let e = error as Coded | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as Coded, depth++
  ) {
    if (typeof e.code === "string" && typeof e.message === "string")
      return { code: e.code, message: e.message };
  }
  return undefined;
}

/** A message's claim that the request is sent again ("…; retried", "It is retried"). */
const RETRY_CLAIM = /\bretried\b/i;

const ADVICE =
  /\b(check|grant|retried|retry|run|fix|read|pick|free|watch|see|clear|raise|report|set)\b/i;

/** Runs one row on a fresh simulator and judges it. */
export async function runFaultRow(
  target: FaultTarget,
  fault: Fault,
  docs: ReadonlyMap<string, DocumentedRetry>,
): Promise<FaultRow> {
  const expectedCode = FAULT_CODE[fault];
  const expectedRetried = documentedRetried(docs, target.kind, fault);
  const problems: string[] = [];
  const { sim, ctx, seeded, imagesUrl, close } = await rig(target.operation);
  const spec = OPERATION_SPECS[target.operation];
  try {
    const state = await spec.prepare(ctx, imagesUrl);
    const vmid = state?.vmid ?? 0;
    const match = matchOf(target.kind);
    const before = sim.requestLog.length;
    const tasksBefore = [...sim.model.tasks.values()].filter(
      (t) => t.type === target.taskType,
    ).length;
    inject(sim, target, fault, vmid);
    let observed: string;
    // What the engine does next: the operation's own `next` after a success (never a second
    // create), its `resume` after a failure that recorded a partial state (a VM create's
    // VmInitError), else the same operation again.
    let rerun = () => spec.run(ctx, imagesUrl, state);
    try {
      const done = await spec.run(ctx, imagesUrl, state);
      if (done !== undefined) rerun = () => spec.next(ctx, imagesUrl, done);
      const after = sim.requestLog.slice(before);
      const again = after.filter(
        (e) => match.method === e.method && match.path.test(e.path),
      ).length;
      // A task is polled several times by nature: for a task failure, "retried" means the
      // task was dispatched again, not that its status was asked twice.
      const tasks = [...sim.model.tasks.values()].filter((t) => t.type === target.taskType);
      const [hit, repeats] =
        fault === "task failure"
          ? [
              tasks.some((t) => String(t.exitstatus).includes("simulated task failure")),
              tasks.length - tasksBefore,
            ]
          : [again > 0, again];
      observed = !hit ? "not reached" : repeats > 1 ? "retried" : "tolerated";
    } catch (error) {
      const resume = spec.resume?.(ctx, imagesUrl, error);
      if (resume !== undefined) rerun = resume;
      const typed = typedError(error);
      observed = `failed ${typed?.code ?? "untyped"}`;
      if (typed === undefined) problems.push(`untyped error: ${String(error)}`);
      else {
        // The request as this row sent it: a template's VMID differs from the clean run's.
        const sent = sim.requestLog
          .slice(before)
          .find((e) => e.method === match.method && match.path.test(e.path));
        // A task failure: the task this row failed, on its node and VM.
        const failed = [...sim.model.tasks.values()].find(
          (t) => t.type === target.taskType && String(t.exitstatus).includes("simulated"),
        );
        const taskPath =
          failed === undefined
            ? undefined
            : `/nodes/${failed.node}` + (/^\d+$/.test(failed.id) ? `/qemu/${failed.id}` : "");
        const path = sent?.path ?? taskPath ?? target.example;
        problems.push(...judgeMessage(typed, path, fault, expectedCode, expectedRetried, vmid));
      }
    }
    sim.faults.clear();
    if (observed === "retried" && !expectedRetried)
      problems.push("retried, documented as not retried");
    problems.push(...(await convergesClean(sim, ctx, seeded, spec, rerun)));
    return { ...target, fault, expectedCode, expectedRetried, observed, problems };
  } finally {
    await close();
  }
}

/** What is wrong with a failure's class and message: it must name the node, VM and remedy. */
function judgeMessage(
  typed: { code: string; message: string },
  path: string,
  fault: Fault,
  expectedCode: string,
  expectedRetried: boolean,
  vmid: number,
): string[] {
  const problems: string[] = [];
  if (typed.code !== expectedCode) problems.push(`code ${typed.code}, documented ${expectedCode}`);
  if (expectedRetried) problems.push("not retried, documented as retried");
  const message = typed.message;
  if (!expectedRetried && RETRY_CLAIM.test(message))
    problems.push("message says retried, documented as not retried");
  const node = /^\/nodes\/([^/]+)/.exec(path)?.[1];
  if (node !== undefined && !message.includes(node))
    problems.push(`message does not name node ${node}`);
  const vm = /\/qemu\/(\d+)/.exec(path)?.[1] ?? (vmid === 0 ? undefined : String(vmid));
  if (vm !== undefined && !message.includes(vm)) problems.push(`message does not name VM ${vm}`);
  if (fault === "403" && !message.includes(PRIVILEGE))
    problems.push(`message does not name ${PRIVILEGE}`);
  if (!ADVICE.test(message)) problems.push("message does not say what to do");
  return problems;
}

/**
 * A fault-free re-run of the operation, then what it leaves (VMs, templates, images, seeds,
 * locks, orphaned disks), then the subject's delete, which must leave nothing.
 */
async function convergesClean(
  sim: Simulator,
  ctx: OperationContext,
  seeded: ReadonlySet<number>,
  spec: (typeof OPERATION_SPECS)[FaultOperation],
  rerun: () => Promise<Subject | undefined>,
): Promise<string[]> {
  try {
    const result = await rerun();
    const problems: string[] = [];
    const left = unexpected(inventory(sim, seeded), spec.expected);
    if (left !== undefined) problems.push(`re-run left ${left.outcome}: ${left.detail}`);
    if (result !== undefined) await spec.remove(ctx, result);
    await spec.cleanup?.(ctx);
    const after = unexpected(inventory(sim, seeded), { vms: 0, templates: 0 });
    if (after !== undefined) problems.push(`delete after the re-run left ${after.detail}`);
    return problems;
  } catch (error) {
    const text = (error as Error).message.replace(/\s+/g, " ");
    return [`re-run failed: ${text.slice(0, 140)}`];
  }
}

export function formatFaultTable(rows: readonly FaultRow[]): string {
  const header = ["OPERATION", "REQUEST", "FAULT", "DOCUMENTED", "OBSERVED", "VERDICT"];
  const cells = rows.map((r) => [
    r.operation,
    r.kind,
    r.fault,
    `${r.expectedCode} ${r.expectedRetried ? "retried" : "not retried"}`,
    r.observed,
    r.problems.length === 0 ? "ok" : r.problems.join("; "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) =>
    c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i] ?? 0))).join("  ");
  return [line(header), ...cells.map(line)].join("\n");
}
