import { PermanentError, TransientError, type ErrorContext, type ProxmoxError } from "../errors.js";
import { describeTarget, pathContext } from "./path-context.js";

/**
 * Turns a failure below HTTP (socket, TLS, timeout, abort) into a Proxmox error. The undici
 * error is kept as `cause` only after {@link scrubCause} rebuilt it from name, code and message:
 * undici errors can carry request options, sockets and headers, and the token must never
 * travel with an error.
 */

/** Node/OpenSSL codes for a certificate the client does not trust: retrying cannot help. */
const TLS_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_SIGNATURE_FAILURE",
]);

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The codes of an error and its causes, outermost first (undici wraps socket errors). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const code = codeOf(current);
    if (code !== undefined) codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * A copy of `error` holding only its name, code and message (with the secret replaced), and the
 * same for its causes: no request options, headers, sockets or other own properties survive.
 */
function scrubCause(error: unknown, secret?: Scrubber, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const message = secret ? secret.scrub(source.message) : source.message;
  const inner = (source as { cause?: unknown }).cause;
  const options =
    inner !== undefined && inner !== null && depth < 4
      ? { cause: scrubCause(inner, secret, depth + 1) }
      : undefined;
  const copy = new Error(message, options);
  copy.name = source.name;
  const code = codeOf(source);
  if (code !== undefined) Object.defineProperty(copy, "code", { value: code, enumerable: true });
  // The stack names only our own frames and undici's; rebuild it from the scrubbed message.
  copy.stack = `${copy.name}: ${message}\n${(source.stack ?? "").split("\n").slice(1).join("\n")}`;
  if (secret) copy.stack = secret.scrub(copy.stack);
  return copy;
}

export interface TransportFailure {
  readonly method: string;
  /** The unencoded API path without query. */
  readonly path: string;
  readonly error: unknown;
  /** True when the caller's signal (not our timeout) ended the request. */
  readonly aborted: boolean;
  /** True when our own per-request timeout fired. */
  readonly timedOut: boolean;
  readonly timeoutMs: number;
  readonly origin: string;
  /** Removes the credentials from a text: the login's `scrub`. */
  readonly secret?: Scrubber | undefined;
}

export interface Scrubber {
  scrub(text: string): string;
}

/** NETWORK (socket, DNS, TLS), TIMEOUT or ABORTED, with a scrubbed cause. */
export function classifyTransportError(failure: TransportFailure): ProxmoxError {
  const { method, path, origin } = failure;
  const cause = scrubCause(failure.error, failure.secret);
  const context: ErrorContext = { method, path, ...pathContext(path) };
  const target = describeTarget(context);
  const request = `${method} ${path}${target === "" ? "" : ` (${target})`}`;
  const codes = codesOf(failure.error);

  if (failure.aborted) {
    return new PermanentError("ABORTED", `${request} was cancelled.`, context, { cause });
  }
  if (failure.timedOut || codes.some((code) => TIMEOUT_CODES.has(code))) {
    return new TransientError(
      "TIMEOUT",
      `${request} got no answer from ${origin} within ${Math.round(failure.timeoutMs / 1000)} s. ` +
        `The request may still have been applied.`,
      context,
      { cause },
    );
  }
  const tls = codes.find((code) => TLS_CODES.has(code));
  if (tls !== undefined) {
    return new PermanentError(
      "NETWORK",
      `${request}: the TLS certificate of ${origin} is not trusted (${tls}). Set ` +
        `\`proxmox:caCert\` (or PROXMOX_VE_CA_CERT) to the PVE CA (/etc/pve/pve-root-ca.pem), ` +
        `or, for a lab only, skip verification with \`proxmox:insecure\` true (or ` +
        `PROXMOX_VE_INSECURE=true).`,
      context,
      { cause },
    );
  }
  const code = codes.find((value) => !value.startsWith("UND_ERR")) ?? codes[0] ?? "error";
  return new TransientError(
    "NETWORK",
    `${request}: cannot talk to ${origin} (${code}: ${cause.message}). Check that the endpoint ` +
      `is right and reachable.`,
    context,
    { cause },
  );
}
