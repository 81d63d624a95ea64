/**
 * What every subcommand reports: the JSON shape written with `--report`, the human summary, and
 * the exit codes. The JSON is a contract for CI code: fields are only ever added.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { canonical } from "../provider/entry";

/** 0 ok / clean, 1 error, 2 drift found (drift only). */
export type ExitCode = 0 | 1 | 2;

/** How reports name the stack config's cluster (the engine's default provider). */
export const DEFAULT_PROVIDER = "default";

/** A bad flag or option: reported as an error with exit code 1, before anything runs. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** One property of one resource, as far as the engine told. */
export interface PropertyChange {
  /** Top-level property name, e.g. `cores`. */
  readonly property: string;
  /** In the state before the refresh: what the last `up` recorded. */
  readonly recorded?: unknown;
  /** What Proxmox holds now (read by the refresh). */
  readonly live?: unknown;
  /** What the program declares. */
  readonly desired?: unknown;
  /** True when the refresh saw the value change outside Pulumi. */
  readonly changedOutside: boolean;
  /** The change is inside a secret value (a hashed password, user-data), which is never shown. */
  readonly secretChanged?: true;
  /** `up` and `destroy`: the value once the command ran. */
  readonly after?: unknown;
}

export interface ResourceChange {
  readonly urn: string;
  readonly type: string;
  /** The resource's logical name (the URN's last part). */
  readonly name: string;
  /**
   * The provider it is made through, when the stack's resources use more than one: an explicit
   * `Provider`'s name, or `default` for the stack config's cluster.
   */
  readonly provider?: string | undefined;
  /** That provider's endpoint host, e.g. `pve.dc2.example.com:8006`, when the engine's events carry it. */
  readonly cluster?: string | undefined;
  /**
   * The engine's step: `update`, `replace`, `create`, `delete`… or `refresh` when only the
   * refresh saw outputs change (addresses, status) and the program needs no step.
   */
  readonly op: string;
  /** True when the refresh found the resource deleted outside Pulumi (`properties` is empty). */
  readonly deletedOutside?: true;
  readonly properties: readonly PropertyChange[];
}

export interface CommandReport {
  readonly command: "drift" | "up" | "destroy";
  readonly stack: string;
  /** `clean`/`drift` for drift, `ok` for up and destroy, `error` for any failure. */
  readonly status: "clean" | "drift" | "ok" | "error";
  readonly exitCode: ExitCode;
  readonly startedAt: string;
  readonly durationMs: number;
  /** The engine's count per step kind, e.g. `{ "same": 2, "update": 1 }`. */
  readonly changeSummary: Readonly<Record<string, number>>;
  /** Every resource with a step other than `same`, or whose refresh changed outputs. */
  readonly resources: readonly ResourceChange[];
  /** Stack outputs after `up`. */
  readonly outputs?: Readonly<Record<string, unknown>> | undefined;
  /** Set when status is `error`: the engine's error lines, or the failure's message. */
  readonly error?: string | undefined;
  /** What the CLI found or did besides the engine run, e.g. pending creates and their recovery. */
  readonly notices?: readonly string[] | undefined;
}

/** Writes a report as pretty JSON, creating the folder. */
export function writeReport(file: string, report: unknown): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** A value for a one-line summary: JSON, shortened. */
export function show(value: unknown): string {
  if (value === undefined) return "(unset)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const SIGN: Record<string, string> = {
  create: "+",
  delete: "-",
  update: "~",
  replace: "+-",
  "create-replacement": "++",
  "delete-replaced": "--",
  refresh: "*",
};

/**
 * The human summary: one block per resource, one line per property. After a command that changed
 * things (`up`), what the refresh found outside Pulumi is told as found, then what became of it.
 */
export function formatChanges(
  changes: readonly ResourceChange[],
  command: CommandReport["command"] = "drift",
): string {
  const ran = command !== "drift";
  const lines: string[] = [];
  for (const change of changes) {
    const on = onCluster(change);
    if (change.deletedOutside === true) {
      const done = ran && change.op === "create" ? "created again" : change.op;
      const next = change.op === "refresh" ? "" : `; ${done}`;
      lines.push(
        `  ${SIGN[change.op] ?? "~"} ${change.name} (${change.type})${on}: deleted outside Pulumi${next}`,
      );
      continue;
    }
    lines.push(`  ${SIGN[change.op] ?? "~"} ${change.name} (${change.type})${on}: ${change.op}`);
    for (const p of change.properties) {
      lines.push(`      ${ran ? formatOutcome(p) : formatProperty(p)}`);
    }
  }
  return lines.join("\n");
}

/** ` on provider dc2 (pve.dc2:8006)`, when the report names the change's cluster. */
function onCluster(change: ResourceChange): string {
  if (change.provider === undefined) return "";
  const about = [
    ...(change.cluster === undefined ? [] : [change.cluster]),
    ...(change.provider === DEFAULT_PROVIDER ? ["the stack config's cluster"] : []),
  ];
  return ` on provider ${change.provider}${about.length > 0 ? ` (${about.join(", ")})` : ""}`;
}

function formatProperty(p: PropertyChange): string {
  if (p.secretChanged === true) return `${p.property}: a secret value changed (program; not shown)`;
  if (p.changedOutside) {
    const wants = "desired" in p ? `; the program sets ${show(p.desired)}` : "";
    return `${p.property}: ${show(p.recorded)} → ${show(p.live)} (changed outside Pulumi${wants})`;
  }
  const from = "live" in p ? p.live : p.recorded;
  return `${p.property}: ${show(from)} → ${show(p.desired)} (program)`;
}

/** A property after `up`: what the refresh found outside Pulumi, then whether `up` put it back. */
function formatOutcome(p: PropertyChange): string {
  if (!p.changedOutside) return formatProperty(p);
  const found = `${p.property}: found ${show(p.live)} (changed outside Pulumi; recorded ${show(p.recorded)})`;
  if (!("after" in p)) return found;
  return same(p.after, p.live)
    ? `${found} → left as found`
    : `${found} → converged to ${show(p.after)}`;
}

/** The closing lines of drift/up/destroy. */
export function formatReport(report: CommandReport): string {
  const head: Record<CommandReport["status"], string> = {
    clean: `No drift in stack ${report.stack}.`,
    drift: `Drift found in stack ${report.stack}: ${report.resources.filter(isPlanned).length} resource(s) would change.`,
    ok: `${report.command} of stack ${report.stack} succeeded.`,
    error: `${report.command} of stack ${report.stack} failed.`,
  };
  const parts = [head[report.status]];
  if (report.resources.length > 0) parts.push(formatChanges(report.resources, report.command));
  for (const notice of report.notices ?? []) parts.push(`  note: ${notice}`);
  if (report.error !== undefined) parts.push(`  error: ${report.error.replace(/\n/g, "\n  ")}`);
  return `${parts.join("\n")}\n`;
}

/** Whether a change is a step the engine would take (not just refreshed outputs). */
export function isPlanned(change: ResourceChange): boolean {
  return !["same", "refresh", "read"].includes(change.op);
}

/** Structural equality, key order ignored. */
export function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
