/**
 * The package's error model (docs/design.md, "One error model"): two kinds, Permanent and Transient, and a stable
 * `code` that says what happened. Only `pve/classify.ts` reads PVE's text to pick one; everyone
 * else branches on `code` or {@link isTransient}. Messages never carry the API token: they are
 * built from the method, the path without its query, the status and PVE's own message.
 */

export const ERROR_CODES = [
  "NOT_FOUND",
  "LOCKED",
  "LOCK_TIMEOUT",
  "ALREADY_EXISTS",
  "ALREADY_RUNNING",
  "AUTH",
  "FORBIDDEN",
  "INVALID_PARAM",
  "SERVER",
  "UNAVAILABLE",
  "NETWORK",
  "TIMEOUT",
  "TASK_FAILED",
  "BAD_RESPONSE",
  "NOT_OURS",
  "CONFLICT",
  "RANGE_EXHAUSTED",
  "CONFIG",
  "BAD_STATE",
  "ABORTED",
  "CHECKSUM_MISMATCH",
  "UNSUPPORTED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Where an error happened, as far as it is known. Never holds headers, bodies or the token. */
export interface ErrorContext {
  readonly method?: string | undefined;
  /** The API path without its query string, e.g. `/nodes/pve1/qemu/100/clone`. */
  readonly path?: string | undefined;
  readonly status?: number | undefined;
  readonly node?: string | undefined;
  readonly vmid?: number | undefined;
  readonly upid?: string | undefined;
  /** For FORBIDDEN: the privilege PVE checked, e.g. `VM.Clone`. */
  readonly privilege?: string | undefined;
  /** For FORBIDDEN: the ACL path PVE checked, e.g. `/vms/100`. */
  readonly aclPath?: string | undefined;
  /** PVE's own message, trimmed. */
  readonly pveMessage?: string | undefined;
  /** For TASK_FAILED: the last lines of the task log. */
  readonly taskLogTail?: readonly string[] | undefined;
  /** For INVALID_PARAM: PVE's per-parameter errors. */
  readonly paramErrors?: Readonly<Record<string, string>> | undefined;
  /** For LOCKED: the config lock PVE reported, e.g. `clone`, `backup`. */
  readonly lock?: string | undefined;
  /** For UNAVAILABLE: which way the node is unavailable, from PVE's message. */
  readonly unavailable?:
    "node-down" | "proxy-timeout" | "no-quorum" | "agent-not-running" | undefined;
  /**
   * For TASK_FAILED: what the task's error text means, when it is one of the classified
   * families (a task that failed with `VM is locked (clone)` has `LOCKED` here), so callers can
   * branch on a code instead of reading the text.
   */
  readonly taskErrorCode?: ErrorCode | undefined;
  /** For TASK_FAILED: the bridge a start could not plug a NIC into (the node lacks it). */
  readonly missingBridge?: string | undefined;
}

const BRAND = Symbol.for("pulumi-proxmox.error");

export abstract class ProxmoxError extends Error {
  abstract readonly transient: boolean;
  readonly code: ErrorCode;
  readonly context: ErrorContext;

  constructor(
    code: ErrorCode,
    message: string,
    context: ErrorContext = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = code;
    this.context = context;
    Object.defineProperty(this, BRAND, { value: true });
  }

  get status(): number | undefined {
    return this.context.status;
  }

  /**
   * What `JSON.stringify` and Pulumi's diagnostics see: the code, message and context. The
   * `cause` (an undici error, already scrubbed by the HTTP layer) is left out on purpose.
   */
  toJSON(): {
    name: string;
    code: ErrorCode;
    transient: boolean;
    message: string;
    context: ErrorContext;
  } {
    return {
      name: this.name,
      code: this.code,
      transient: this.transient,
      message: this.message,
      context: this.context,
    };
  }

  /** A brand check, so errors thrown by a second copy of this module are still recognised. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== "object" || value === null || !(BRAND in value)) return false;
    if (this === ProxmoxError) return true;
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** Retrying will not help: the request, the privilege or the state must change first. */
export class PermanentError extends ProxmoxError {
  readonly transient = false;
  override readonly name = "PermanentError";
}

/** Retrying may help: a lock, a busy or unreachable node, a lagging listing. */
export class TransientError extends ProxmoxError {
  readonly transient = true;
  override readonly name = "TransientError";
}

export function isProxmoxError(value: unknown): value is ProxmoxError {
  return value instanceof ProxmoxError;
}

export function isTransient(value: unknown): value is TransientError {
  return isProxmoxError(value) && value.transient;
}

export function isPermanent(value: unknown): value is PermanentError {
  return isProxmoxError(value) && !value.transient;
}

export function hasCode(value: unknown, code: ErrorCode): value is ProxmoxError {
  return isProxmoxError(value) && value.code === code;
}

/** What PVE's refusal of a pool that does not exist means, and what to do (clone or pool update). */
export function missingPool(poolid: string): string {
  return (
    `resource pool '${poolid}' does not exist. Create it (pveum pool add ${poolid}) or set pool ` +
    "to an existing pool."
  );
}

/** {@link aboutVm}, for an error whose message may name the VM already (then it is left as is). */
export function aboutVmOnce(
  error: unknown,
  vm: { readonly node?: string | undefined; readonly vmid: number },
  doing: string,
): unknown {
  if (error instanceof Error && new RegExp(`\\bVM ${vm.vmid}\\b`).test(error.message)) return error;
  return aboutVm(error, vm, doing);
}

/**
 * How every message names a VM: `VM 13695 on pve1`, or `VM 13695` while its node is not known.
 * One form, so a user can search a log for it.
 */
export function vmLabel(vm: { readonly vmid: number; readonly node?: string | undefined }): string {
  return vm.node === undefined ? `VM ${vm.vmid}` : `VM ${vm.vmid} on ${vm.node}`;
}

/**
 * `error` restated for the VM it happened to, when the request's path names only a node or a
 * storage (a seed upload, a storage listing): the message leads with the VM and node and what
 * was being done; the kind, code and PVE's message are kept. Anything else is returned as it is.
 */
export function aboutVm(
  error: unknown,
  vm: { readonly node?: string | undefined; readonly vmid: number },
  doing: string,
): unknown {
  if (!isProxmoxError(error)) return error;
  const message = `${vmLabel(vm)}: ${doing} failed: ${error.message}`;
  const context = { ...error.context, node: vm.node ?? error.context.node, vmid: vm.vmid };
  return error.transient
    ? new TransientError(error.code, message, context, { cause: error })
    : new PermanentError(error.code, message, context, { cause: error });
}
