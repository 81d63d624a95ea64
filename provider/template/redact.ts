/**
 * A pre-signed image URL (`?X-Amz-Signature=…`, `?token=…`) carries its credential in the query
 * string, so every URL shown — progress lines, errors, the task log PVE returns, the mark written
 * into the template's description — goes through {@link redactUrls} first: the query becomes
 * `?…`, the scheme, host and path stay readable.
 */
import { isProxmoxError, PermanentError, TransientError, type ProxmoxError } from "../pve/errors";

/** An http(s) URL up to its query string, then the query (up to a fragment, space or quote). */
const URL_QUERY = /\b(https?:\/\/[^\s?#'"]*)\?[^\s#'"]*/gi;

/** `text` with the query string of every http(s) URL in it replaced by `?…`. */
export function redactUrls(text: string): string {
  return text.replace(URL_QUERY, "$1?…");
}

/**
 * `error` with {@link redactUrls} applied to its message, PVE's message, its per-parameter
 * errors and the task log tail (a failed download's wget lines name the URL). The original is not kept as the `cause`, which
 * would carry the query string along.
 */
export function redactedError(error: unknown): unknown {
  if (!isProxmoxError(error)) {
    return error instanceof Error ? new Error(redactUrls(error.message)) : error;
  }
  const { pveMessage, paramErrors, taskLogTail } = error.context;
  const context: ProxmoxError["context"] = {
    ...error.context,
    ...(pveMessage === undefined ? {} : { pveMessage: redactUrls(pveMessage) }),
    ...(paramErrors === undefined
      ? {}
      : {
          paramErrors: Object.fromEntries(
            Object.entries(paramErrors).map(([key, text]) => [key, redactUrls(text)]),
          ),
        }),
    ...(taskLogTail === undefined ? {} : { taskLogTail: taskLogTail.map(redactUrls) }),
  };
  const message = redactUrls(error.message);
  return error.transient
    ? new TransientError(error.code, message, context)
    : new PermanentError(error.code, message, context);
}
