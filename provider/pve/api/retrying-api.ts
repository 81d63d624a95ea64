import { isTransient, TransientError, type ProxmoxError } from "../errors.js";
import { abortedError, backoffDelay, systemClock, type Clock } from "../retry.js";
import type { ConfigUpdate, ProxmoxApi } from "./proxmox-api.js";

/**
 * A decorator over any {@link ProxmoxApi} that retries transient answers, so one 596 or one
 * reset connection does not fail a deployment. How far a method is retried depends on what a
 * repeat can do (docs/errors.md, "What is retried"):
 *
 * - `read`: a GET changes nothing; every transient answer is retried.
 * - `idempotent`: a repeat reaches the same goal as the first request (PUT resize with an
 *   absolute size, a config POST with the same keys, DELETE, start/stop/shutdown, the
 *   content-addressed seed upload); every transient answer is retried, and the caller counts a
 *   repeat's "already done" answer (NOT_FOUND for a delete, ALREADY_RUNNING for a start) as done.
 * - `unsafe`: a second clone, reboot or migration is a second action; a second VM create,
 *   image download or template conversion fails because the first one worked (VM exists, file
 *   exists, already a template), hiding that success. Retried only when the first request
 *   provably had no effect: it never reached PVE (connection refused, a 595 from pveproxy that
 *   could not reach the node) or PVE refused it (a lock, no quorum). Any other failure is
 *   thrown for the caller to decide (clone.ts looks for its own VM first; a template create
 *   lists the import storage and the VMID before repeating a step).
 * - `none`: the task-status poll and the node's task list already treat a transient answer as
 *   "not yet".
 */

export type RetryKind = "read" | "idempotent" | "unsafe" | "none";

type Method = Exclude<keyof ProxmoxApi, "invalidateClusterVms" | "invalidateNodeVms">;

const RETRY_KINDS: Readonly<Record<Method, RetryKind>> = {
  version: "read",
  permissions: "read",
  clusterVms: "read",
  nextVmid: "read",
  nodes: "read",
  nodeStorages: "read",
  nodeBridges: "read",
  resourceMapping: "read",
  vmConfig: "read",
  vmPending: "read",
  vmStatus: "read",
  nodeVms: "read",
  agentInterfaces: "read",
  vmSnapshots: "read",
  storageContent: "read",
  taskLog: "read",
  taskStatus: "none",
  nodeTasks: "none",
  updateVmConfig: "idempotent",
  updateVmConfigSync: "idempotent",
  resizeDisk: "idempotent",
  destroyVm: "idempotent",
  deleteVolume: "idempotent",
  startVm: "idempotent",
  stopVm: "idempotent",
  shutdownVm: "idempotent",
  uploadIso: "idempotent",
  updateSnapshot: "idempotent",
  // A repeat finds the snapshot gone: the caller counts NOT_FOUND as deleted.
  deleteSnapshot: "idempotent",
  cloneVm: "unsafe",
  createVm: "unsafe",
  convertToTemplate: "unsafe",
  downloadUrl: "unsafe",
  rebootVm: "unsafe",
  migrateVm: "unsafe",
  moveDisk: "unsafe",
  // A repeated add or removal is refused ("already a pool member"): the next `up` reads the
  // listing and does only what is left.
  updatePoolMembership: "unsafe",
  // A second snapshot of one name fails ("already used"), hiding the first one's success; a
  // second rollback would discard whatever happened after the first.
  createSnapshot: "unsafe",
  rollbackSnapshot: "unsafe",
};

/** Whether `method` only reads (a GET that changes nothing on PVE and sees no change end). */
export function isReadRequest(method: string): boolean {
  return RETRY_KINDS[method as Method] === "read";
}

/** What the progress line calls each request, e.g. `GET /cluster/resources`. */
const REQUEST_NAMES: Readonly<Record<Method, string>> = {
  version: "GET /version",
  permissions: "GET /access/permissions",
  clusterVms: "GET /cluster/resources",
  nextVmid: "GET /cluster/nextid",
  nodes: "GET /nodes",
  nodeStorages: "GET storages",
  nodeBridges: "GET bridges",
  resourceMapping: "GET resource mapping",
  vmConfig: "GET config",
  vmPending: "GET pending",
  vmStatus: "GET status",
  nodeVms: "GET node VMs",
  agentInterfaces: "GET guest interfaces",
  vmSnapshots: "GET snapshots",
  storageContent: "GET storage content",
  taskLog: "GET task log",
  taskStatus: "GET task status",
  nodeTasks: "GET node tasks",
  updateVmConfig: "POST config",
  updateVmConfigSync: "PUT config",
  resizeDisk: "PUT resize",
  destroyVm: "DELETE VM",
  deleteVolume: "DELETE volume",
  startVm: "POST start",
  stopVm: "POST stop",
  shutdownVm: "POST shutdown",
  uploadIso: "POST upload",
  cloneVm: "POST clone",
  createVm: "POST create",
  convertToTemplate: "POST template",
  downloadUrl: "POST download-url",
  rebootVm: "POST reboot",
  migrateVm: "POST migrate",
  moveDisk: "POST move_disk",
  updatePoolMembership: "PUT pool",
  createSnapshot: "POST snapshot",
  updateSnapshot: "PUT snapshot config",
  rollbackSnapshot: "POST snapshot rollback",
  deleteSnapshot: "DELETE snapshot",
};

export interface RetryingApiOptions {
  /** Receives one line per retry, naming the request, the error and the attempt. */
  readonly progress: (message: string) => void;
  readonly clock?: Clock | undefined;
  /** In [0, 1): the jitter source, injected by tests for exact delays. */
  readonly random?: (() => number) | undefined;
  /** Attempts in all, the first included (default {@link RETRY}'s). */
  readonly maxAttempts?: number | undefined;
  /** How long after its first failure a call may still start a retry (default {@link RETRY}'s). */
  readonly budgetMs?: number | undefined;
  /** The first back-off, doubled per retry up to `maxDelayMs` (defaults {@link RETRY}'s). */
  readonly initialDelayMs?: number | undefined;
  readonly maxDelayMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * How far a transient answer is retried: 6 attempts in all, the back-off 1 s doubling to 8 s with
 * jitter, no retry later than 60 s after the call's first failure. docs/errors.md quotes it.
 */
export const RETRY = {
  maxAttempts: 6,
  budgetMs: 60_000,
  initialDelayMs: 1_000,
  maxDelayMs: 8_000,
} as const;

/** Socket codes meaning the connection never opened: the request did not leave this process. */
const NEVER_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = (error as { cause?: unknown }).cause;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * Whether a transient failure provably had no effect on PVE: the connection never opened, the
 * proxy could not reach the node (595), or PVE itself answered with a refusal (a lock, no
 * quorum, busy). A reset connection, a timeout, a 596 or a gateway 502/504 may have been applied.
 */
export function hadNoEffect(error: ProxmoxError): boolean {
  if (error.code === "NETWORK" || error.code === "TIMEOUT") {
    return causeCodes(error).some((code) => NEVER_SENT_CODES.has(code));
  }
  if (error.code === "UNAVAILABLE") {
    const why = error.context.unavailable;
    if (why === "node-down" || why === "no-quorum" || why === "agent-not-running") return true;
    // 429 and 503 are refusals; 596, 502, 504 and other 5xx may come after PVE acted.
    return why === undefined && (error.status === 429 || error.status === 503);
  }
  return error.code === "LOCKED" || error.code === "LOCK_TIMEOUT";
}

/** The retry kind of one call: a config write (POST or PUT) with a `digest` fails its repeat with CONFLICT. */
function kindOf(method: Method, args: readonly unknown[]): RetryKind {
  const isConfigWrite = method === "updateVmConfig" || method === "updateVmConfigSync";
  if (isConfigWrite && (args[2] as ConfigUpdate | undefined)?.digest !== undefined) return "unsafe";
  return RETRY_KINDS[method];
}

function retryable(kind: RetryKind, error: unknown): boolean {
  if (!isTransient(error)) return false;
  // The guest agent not running yet is the state the caller is polling for, not a blip.
  if (error.context.unavailable === "agent-not-running") return false;
  if (kind === "none") return false;
  if (kind === "unsafe") return hadNoEffect(error);
  return true;
}

/**
 * What became of the request, told from the same facts that decided it: a request that was
 * sent again says how often, one that may have been carried out says it was not sent again.
 * Empty when neither applies (a permanent error, a poll that treats the answer as "not yet").
 */
function retryNote(kind: RetryKind, error: unknown, attempts: number): string {
  if (!isTransient(error) || kind === "none") return "";
  if (attempts > 1) return ` Sent ${attempts} times; it failed each time.`;
  if (kind === "unsafe" && !hadNoEffect(error))
    return (
      " Not sent again, since PVE may have carried it out; run the command again: it reads " +
      "what was done and carries on."
    );
  return "";
}

/** `error` with {@link retryNote} added to its message; anything else as it is. */
function withRetryNote(kind: RetryKind, error: unknown, attempts: number): unknown {
  const note = retryNote(kind, error, attempts);
  if (note === "" || !isTransient(error)) return error;
  const cause = (error as { cause?: unknown }).cause;
  return new TransientError(
    error.code,
    `${error.message}${note}`,
    error.context,
    cause === undefined ? undefined : { cause },
  );
}

function describe(method: Method, args: readonly unknown[]): string {
  const [first, second] = args;
  const where =
    typeof first === "object" && first !== null
      ? (first as { node?: unknown; newid?: unknown })
      : { node: first, vmid: second };
  const parts: string[] = [];
  if (typeof where.node === "string") parts.push(`node ${where.node}`);
  const vmid = "newid" in where ? where.newid : (where as { vmid?: unknown }).vmid;
  if (typeof vmid === "number") parts.push(`VM ${vmid}`);
  return `${REQUEST_NAMES[method]}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
}

function reason(error: ProxmoxError): string {
  const pve = error.context.pveMessage;
  if (error.status !== undefined) return `${error.status} ${pve ?? error.code}`;
  if (error.code === "TIMEOUT") return "no answer in time";
  const code = causeCodes(error).find((c) => !c.startsWith("UND_ERR")) ?? causeCodes(error)[0];
  return code === undefined ? error.code : `connection failed (${code})`;
}

/** `inner` with every call retried as {@link RETRY_KINDS} says. */
export function retryingApi(inner: ProxmoxApi, options: RetryingApiOptions): ProxmoxApi {
  const clock = options.clock ?? systemClock;
  const maxAttempts = options.maxAttempts ?? RETRY.maxAttempts;
  const budgetMs = options.budgetMs ?? RETRY.budgetMs;
  const backoff = {
    initialDelayMs: options.initialDelayMs ?? RETRY.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? RETRY.maxDelayMs,
    random: options.random,
  };

  const call = async (method: Method, fn: () => Promise<unknown>, args: readonly unknown[]) => {
    // The budget runs from the first failure, not the first send: a request that timed out has
    // already waited the client's whole request timeout, and must still get its retries.
    let deadline: number | undefined;
    const kind = kindOf(method, args);
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (!retryable(kind, error) || attempt >= maxAttempts)
          throw withRetryNote(kind, error, attempt);
        deadline ??= clock.now() + budgetMs;
        const delay = backoffDelay(attempt, backoff);
        if (clock.now() + delay > deadline) throw withRetryNote(kind, error, attempt);
        options.progress(
          `${describe(method, args)}: ${reason(error as ProxmoxError)}, retrying ` +
            `(attempt ${attempt + 1} of ${maxAttempts}, in ${(delay / 1000).toFixed(1)} s)`,
        );
        try {
          await clock.sleep(delay, options.signal);
        } catch {
          throw abortedError(`The retry of ${describe(method, args)}`, options.signal);
        }
      }
    }
  };

  return new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (typeof property !== "string" || !(property in RETRY_KINDS)) return value.bind(target);
      const method = property as Method;
      const fn = value as (...a: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => call(method, () => fn.apply(target, args), args);
    },
  });
}
