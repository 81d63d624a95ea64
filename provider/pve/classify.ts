import {
  PermanentError,
  TransientError,
  vmLabel,
  type ErrorCode,
  type ErrorContext,
} from "./errors.js";
import type { Login } from "./config.js";
import type { ProxmoxError } from "./errors.js";
import { describeTarget, pathContext } from "./api/path-context.js";
import { typeOfUpid, vmidOfUpid } from "./upid.js";
import { familyOf, VM_MISSING, type Family } from "./error-families.js";
import { at, firstLine, paramErrorsOf, pveMessageOf } from "./pve-answer.js";
import { forbidden } from "./forbidden.js";

/**
 * The only place that reads PVE's text (docs/design.md, "One error model"). `classify` turns a non-2xx answer into
 * a Permanent or Transient error with a stable code; `classifyTaskFailure` does the same for a
 * task's exit status. Patterns are case-sensitive and each has a test row naming the PVE source
 * file that emits it (test/provider/pve/classify.test.ts). Messages are built from the method,
 * the path without its query, the status and PVE's message: never headers or bodies we sent.
 */

function make(
  transient: boolean,
  code: ErrorCode,
  message: string,
  context: ErrorContext,
): ProxmoxError {
  return transient
    ? new TransientError(code, message, context)
    : new PermanentError(code, message, context);
}

function vmidFromLockFile(text: string): number | undefined {
  const match = /lock-(\d+)\.conf/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function invalidParam(request: string, target: string, pve: string, context: ErrorContext) {
  const errors = context.paramErrors ?? {};
  // API2/Cluster.pm nextid: 400 with errors.vmid = "VM 200 already exists".
  if (Object.values(errors).some((text) => familyOf(text)?.code === "ALREADY_EXISTS")) {
    return new PermanentError(
      "ALREADY_EXISTS",
      `${request}${at(target)} failed: ${Object.values(errors).join("; ")}. Pick another VMID.`,
      context,
    );
  }
  // An import file name that does not fit the content type (400 errors.filename).
  const unsupported = Object.entries(errors).find(
    ([, text]) => familyOf(text)?.code === "UNSUPPORTED",
  );
  if (unsupported !== undefined) {
    return new PermanentError(
      "UNSUPPORTED",
      `${request}${at(target)} was rejected: ${unsupported[0]}: ${unsupported[1]}. An image ` +
        `stored as \`import\` content must end .qcow2, .raw, .vmdk or .ova (an Ubuntu *.img is ` +
        `qcow2: store it as .qcow2).`,
      context,
    );
  }
  // API2/Tasks.pm read_task_status: 400 with errors.upid = "no such task".
  if (errors["upid"] === "no such task") {
    return new PermanentError(
      "NOT_FOUND",
      `${request}: the task is unknown to node ${context.node ?? "?"} (no such task).`,
      context,
    );
  }
  const details = Object.entries(errors).map(([key, text]) => `${key}: ${text}`);
  return new PermanentError(
    "INVALID_PARAM",
    `${request}${at(target)} was rejected: ${details.length > 0 ? details.join("; ") : pve}. ` +
      `Fix the named inputs; retrying the same request cannot succeed.`,
    context,
  );
}

function unavailable(
  request: string,
  target: string,
  status: number,
  pve: string,
  ctx: ErrorContext,
) {
  // 595/596 come from AnyEvent::HTTP in pveproxy's proxy_request (APIServer/AnyEvent.pm); the
  // reason is the OS error. Split by message: a timeout means the node or its pvedaemon is
  // busy; anything else means it could not be reached at all.
  const timedOut = /timed out|timeout/i.test(pve);
  const node = ctx.node === undefined ? "the target node" : `node ${ctx.node}`;
  const message = timedOut
    ? `${request}${at(target)} timed out inside the cluster (${status} ${pve}): ${node} or its ` +
      `pvedaemon did not answer pveproxy within 30 s. If it persists, check the ` +
      `load on ${node}.`
    : `${request}${at(target)} could not reach ${node} (${status} ${pve}): it is down or ` +
      `unreachable from the node that received the request. If it persists, ` +
      `check ${node} and the cluster network.`;
  return new TransientError("UNAVAILABLE", message, {
    ...ctx,
    unavailable: timedOut ? "proxy-timeout" : "node-down",
  });
}

function fromFamily(
  family: Family,
  request: string,
  target: string,
  pve: string,
  ctx: ErrorContext,
) {
  const subject = target;
  switch (family.code) {
    case "LOCKED": {
      const lock = family.pattern.exec(pve)?.[1];
      return make(
        true,
        "LOCKED",
        `${request}: ${subject || "the guest"} is locked (${lock ?? "?"}) by another operation. ` +
          `It is retried until the budget runs out; if no task holds the lock, clear it on the ` +
          `node with \`qm unlock ${ctx.vmid ?? "<vmid>"}\`.`,
        { ...ctx, lock },
      );
    }
    case "LOCK_TIMEOUT": {
      const vmid = ctx.vmid ?? vmidFromLockFile(pve);
      return make(
        true,
        "LOCK_TIMEOUT",
        `${request}: timed out waiting for the config file lock of VM ${vmid ?? "?"} (${pve}); ` +
          `another task is changing it. Retried.`,
        { ...ctx, vmid },
      );
    }
    case "NOT_FOUND":
      return make(
        false,
        "NOT_FOUND",
        VM_MISSING.test(pve) && subject !== ""
          ? `${request}: ${subject} does not exist (${pve}). It was deleted or moved outside ` +
              `Pulumi; \`pulumi refresh\` updates the state.`
          : `${request}${at(target)}: ${pve}. Check that the named object exists.`,
        ctx,
      );
    case "ALREADY_EXISTS":
      return make(
        false,
        "ALREADY_EXISTS",
        `${request}: ${pve}. The VMID is taken (possibly by a concurrent create); pick another.`,
        ctx,
      );
    case "RANGE_EXHAUSTED":
      return make(
        false,
        "RANGE_EXHAUSTED",
        `${request}: ${pve}. Free VMIDs or widen the next-id range in datacenter.cfg.`,
        ctx,
      );
    case "CONFLICT":
      return make(
        false,
        "CONFLICT",
        `${request}${at(target)}: the config changed since it was read (${pve}); read it again.`,
        ctx,
      );
    case "CHECKSUM_MISMATCH":
      return make(
        false,
        "CHECKSUM_MISMATCH",
        `${request}${at(target)}: ${pve}. The file at the URL is not the one the checksum names: ` +
          `check the URL and the checksum (and its algorithm); nothing was stored.`,
        ctx,
      );
    case "UNSUPPORTED":
      return make(
        false,
        "UNSUPPORTED",
        `${request}${at(target)}: ${pve}. Pick a storage that has the content type (Datacenter → ` +
          `Storage → Content) or an image PVE can import (qcow2, raw, vmdk, uncompressed).`,
        ctx,
      );
    case "UNAVAILABLE": {
      const agent = /guest agent/.test(pve);
      return make(
        true,
        "UNAVAILABLE",
        `${request}${at(target)}: ${pve}. ${agent ? "The guest has not started its agent yet" : "The cluster has no quorum"}; retried.`,
        { ...ctx, unavailable: agent ? "agent-not-running" : "no-quorum" },
      );
    }
    default:
      return make(family.transient, family.code, `${request}${at(target)}: ${pve}.`, ctx);
  }
}

/**
 * A 401. PVE's auth_handler (pve-manager `PVE/HTTPServer.pm`) answers it with an empty body and
 * the reason "No ticket", "Authentication failed!" or (older builds) the verify_token text; a
 * refused login (`POST /access/ticket`) says "authentication failure" whatever the cause, so as
 * not to tell which users exist (pve-access-control `PVE/API2/AccessControl.pm`,
 * `create_ticket`). Both are permanent: a password login's HTTP layer has already renewed its
 * ticket once before a 401 gets here.
 */
function unauthenticated(
  request: string,
  pve: string,
  context: ErrorContext,
  login: Login | undefined,
): ProxmoxError {
  let advice: string;
  if (login?.kind === "password" && context.path === "/access/ticket") {
    advice =
      `PVE refused the login of ${login.username}. Check \`proxmox:username\` and ` +
      `\`proxmox:password\` (or PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD): the user ` +
      `exists in that realm and is enabled, and the password is current.`;
  } else if (login?.kind === "password") {
    advice =
      `PVE refused a new login ticket of ${login.username}: check that the user is enabled ` +
      `and has not expired.`;
  } else {
    advice =
      `Check the API token${login === undefined ? "" : ` ${login.tokenId}`}: its id and ` +
      `secret, that it exists and has not expired, and that its user is enabled.`;
  }
  return new PermanentError(
    "AUTH",
    `${request} was not authenticated (401 ${pve}). ${advice}`,
    context,
  );
}

/**
 * Classifies a non-2xx PVE answer. `path` is the API path without `/api2/json` and without its
 * query string; `body` is the parsed JSON body (or its raw text, or undefined when empty).
 */
export function classify(
  method: string,
  path: string,
  status: number,
  statusText: string,
  body: unknown,
  /** Who logged in (token id or user, never the secret), named in a 401 message. */
  login?: Login,
): ProxmoxError {
  const pve = firstLine(pveMessageOf(statusText, body)) || `HTTP ${status}`;
  const context: ErrorContext = {
    method,
    path,
    status,
    ...pathContext(path),
    pveMessage: pve,
    paramErrors: paramErrorsOf(body),
  };
  const request = `${method} ${path}`;
  const target = describeTarget(context);

  if (status === 401) return unauthenticated(request, pve, context, login);
  if (status === 403) return forbidden(request, target, pve, context, login);
  // check_vm_modify_config_perm (qemu-server PVE/API2/Qemu.pm) refuses a key only root@pam may
  // set with a plain `die`: a 500 "only root can set 'affinity' config", said as a login to use.
  if (status === 500 && /^only root can set '/.test(pve)) {
    return forbidden(request, target, pve, context, login);
  }
  if (status === 400) return invalidParam(request, target, pve, context);
  if (status === 404) {
    return new PermanentError(
      "NOT_FOUND",
      `${request}: not found (404 ${pve}). Check the node, VMID or storage name.`,
      context,
    );
  }
  if (status === 595 || status === 596) return unavailable(request, target, status, pve, context);
  // AnyEvent.pm handle_api2_request: "Method 'GET /x' not implemented" means this PVE lacks the
  // route. Before pve-http-server 5.2.0 any error that escaped a handler also answered 501 (its
  // changelog: "use the '500 Internal Server Error' … instead of '501 Not Implemented'"): that
  // is a server error with its own message, not a missing call.
  if (status === 501 && /^Method '[^']*' not implemented/.test(pve)) {
    return new PermanentError(
      "SERVER",
      `${request}: PVE does not implement this call (501 ${pve}). The PVE version is too old ` +
        `or the path is wrong.`,
      context,
    );
  }
  const family = status >= 500 ? familyOf(pve) : undefined;
  if (family !== undefined) return fromFamily(family, request, target, pve, context);
  if (status === 429 || status === 502 || status === 503 || status === 504 || status > 501) {
    return new TransientError(
      "UNAVAILABLE",
      `${request}${at(target)}: PVE is unavailable (${status} ${pve}). If it persists, check ` +
        `the node and any proxy in front of PVE.`,
      context,
    );
  }
  // Any other 500 is a die in the handler (RESTEnvironment/Exception.pm): the same request
  // usually dies the same way, so it is permanent within the run: resending it forever would
  // hide the cause from the user. A die can still pass (a storage that was full for a moment), and
  // the next `up` sends the request again: the message says so rather than "it will never work".
  return new PermanentError(
    "SERVER",
    `${request}${at(target)} failed on the server (${status} ${pve}). This run does not send ` +
      `it again: PVE gave up on the request, and the same request usually fails the same way. The next ` +
      "`pulumi up` sends it again and carries on from there (what this run finished is kept): " +
      "fix what PVE names first; if the cause has passed, that `up` completes.",
    context,
  );
}

/**
 * Classifies a task that stopped with an error exit status (`TASK ERROR: <text>`,
 * RESTEnvironment.pm fork_worker). Always a `TASK_FAILED` {@link PermanentError} (the task ran
 * and failed: waiting again cannot change that); `context.taskErrorCode` says which family the
 * text belongs to, e.g. `LOCKED` for a destroy that found the VM locked.
 */
export function classifyTaskFailure(
  node: string,
  upid: string,
  exitstatus: string,
  logTail: readonly string[],
): PermanentError {
  const family = familyOf(exitstatus);
  const missingBridge = missingBridgeIn(logTail);
  const context: ErrorContext = {
    node,
    upid,
    vmid: vmidOfUpid(upid),
    pveMessage: exitstatus,
    taskLogTail: logTail,
    taskErrorCode: missingBridge === undefined ? family?.code : "NOT_FOUND",
    missingBridge,
  };
  const type = typeOfUpid(upid) ?? "task";
  const where =
    context.vmid === undefined ? `on node ${node}` : `for ${vmLabel({ vmid: context.vmid, node })}`;
  const tail = logTail.length > 0 ? `\nLast lines of the task log:\n  ${logTail.join("\n  ")}` : "";
  if (missingBridge !== undefined) {
    return new PermanentError(
      "TASK_FAILED",
      `PVE task ${type} ${where} failed: a NIC is on bridge ${missingBridge}, which node ${node} ` +
        `does not have (${exitstatus}; ${upid}). The VM was not started: its network, not its ` +
        `guest, is the problem. Set the NIC's bridge to one node ${node} has, or create ` +
        `${missingBridge} there (System → Network); the next \`up\` starts the VM.${tail}`,
      context,
    );
  }
  return new PermanentError(
    "TASK_FAILED",
    `PVE task ${type} ${where} failed: ${exitstatus} (${upid}). See the task log in the PVE UI ` +
      `(node ${node}, Tasks).${tail}`,
    context,
  );
}

/**
 * pve-common `PVE/Network.pm` (`$read_bridge_mtu`): "bridge '<name>' does not exist", logged by
 * qemu-server's pve-bridge script when QEMU starts and a NIC names a bridge the node lacks.
 */
function missingBridgeIn(logTail: readonly string[]): string | undefined {
  for (const line of logTail) {
    const bridge = /^bridge '([^']+)' does not exist$/.exec(line.trim())?.[1];
    if (bridge !== undefined) return bridge;
  }
  return undefined;
}
