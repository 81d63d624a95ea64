/** Reading an error answer of PVE: its message, its first line, its per-parameter errors. */

/** The first line of PVE's message, without the trailing newline PVE ≥ 8.3 keeps. */
export function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}

export function bodyField(body: unknown, key: string): unknown {
  return typeof body === "object" && body !== null
    ? (body as Record<string, unknown>)[key]
    : undefined;
}

export function paramErrorsOf(body: unknown): Record<string, string> | undefined {
  const errors = bodyField(body, "errors");
  if (typeof errors !== "object" || errors === null) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(errors)) out[key] = String(value).trim();
  return Object.keys(out).length > 0 ? out : undefined;
}

/** pve-http-server ≥ 5.2 puts the full die text in `message`; older ones only in the reason. */
export function pveMessageOf(statusText: string, body: unknown): string {
  const message = bodyField(body, "message");
  if (typeof message === "string" && message.trim() !== "") return message.trim();
  if (typeof body === "string" && body.trim() !== "" && !body.trim().startsWith("{")) {
    return firstLine(body);
  }
  return statusText.trim();
}

/** " (VM 100 on node pve1)" after a request, or nothing when the target is unknown. */
export function at(target: string): string {
  return target === "" ? "" : ` (${target})`;
}
