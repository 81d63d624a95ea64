/**
 * Redaction of a recorded run, and the structural difference between two runs of the scenario:
 * per step, the status, the fields present and their types, PVE's error text, and the values of
 * the config keys the scenario wrote (where the grammar findings live), with MACs generalised.
 */
import type { Exchange } from "./client.js";

export interface Secrets {
  /** Literal strings to replace (token secret, password, ticket, CSRF token, host). */
  readonly strings: readonly (readonly [string, string])[];
  /** Whole numbers to replace: the VMIDs, which differ between runs (`tap4200i0` → `tap<vmid>i0`). */
  readonly words?: readonly (readonly [string, string])[];
}

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
/**
 * An IPv6 address: eight groups, or fewer around one `::`. A clock (`21:30:24`), a MAC (six
 * groups) or a Perl package name (`PVE::Network`) is none of these, so each stays readable.
 */
const IPV6 = new RegExp(
  [
    "(?<![0-9a-z:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![0-9a-z:])",
    "(?<![0-9a-z:])(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?(?![0-9a-z:])",
  ].join("|"),
  "gi",
);

/** Every string in an exchange with the secrets, hosts and addresses replaced. */
export function redact(exchange: Exchange, secrets: Secrets): Exchange {
  const text = (s: string): string => {
    let out = s;
    for (const [needle, replacement] of secrets.strings) {
      if (needle !== "") out = out.split(needle).join(replacement);
    }
    for (const [word, replacement] of secrets.words ?? []) {
      out = out.replace(new RegExp(`(?<!\\d)${word}(?!\\d)`, "g"), replacement);
    }
    return out.replace(IPV4, "<ipv4>").replace(IPV6, "<ipv6>");
  };
  const deep = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), deep(v)]));
    }
    return value;
  };
  return {
    ...exchange,
    path: text(exchange.path),
    params: deep(exchange.params) as Record<string, string>,
    data: deep(exchange.data),
    error: exchange.error === undefined ? undefined : text(exchange.error),
  };
}

/** The shape of a value: types by field, arrays as the union of their elements' shapes. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) {
    const merged: Record<string, unknown> = {};
    let scalar: string | undefined;
    for (const item of value) {
      const shape = shapeOf(item);
      if (shape !== null && typeof shape === "object") Object.assign(merged, shape);
      else scalar = String(shape);
    }
    return [scalar ?? merged];
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]),
    );
  }
  return value === null ? "null" : typeof value;
}

/** Config keys the scenario writes: their rendered values are compared, not only their types. */
const WRITTEN_KEYS = ["net1", "net2", "ide2", "ide3"];
const generalise = (value: unknown): string =>
  String(value).replace(/[0-9A-F]{2}(?::[0-9A-F]{2}){5}/gi, "<mac>");

/** Lines naming each difference between the real run and the simulator's; [] when none. */
export function compareRuns(real: readonly Exchange[], sim: readonly Exchange[]): string[] {
  const differences: string[] = [];
  const simByStep = new Map(sim.map((e) => [e.step, e]));
  for (const r of real) {
    const s = simByStep.get(r.step);
    if (s === undefined) {
      differences.push(`${r.step}: ran on PVE, not on the simulator`);
      continue;
    }
    simByStep.delete(r.step);
    if (r.status !== s.status)
      differences.push(`${r.step}: status ${r.status} on PVE, ${s.status} on the simulator`);
    if ((r.error ?? "") !== (s.error ?? "")) {
      differences.push(
        `${r.step}: error "${r.error ?? ""}" on PVE, "${s.error ?? ""}" on the simulator`,
      );
    }
    differences.push(...shapeDifferences(r.step, "data", shapeOf(r.data), shapeOf(s.data)));
    if (r.step.startsWith("config-rendered")) {
      for (const key of WRITTEN_KEYS) {
        const pve = generalise((r.data as Record<string, unknown> | null)?.[key]);
        const mine = generalise((s.data as Record<string, unknown> | null)?.[key]);
        if (pve !== mine)
          differences.push(`${r.step}: ${key} is "${pve}" on PVE, "${mine}" on the simulator`);
      }
    }
  }
  for (const step of simByStep.keys())
    differences.push(`${step}: ran on the simulator, not on PVE`);
  return differences;
}

function shapeDifferences(step: string, at: string, pve: unknown, sim: unknown): string[] {
  const isObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (Array.isArray(pve) && Array.isArray(sim)) {
    return shapeDifferences(step, `${at}[]`, pve[0], sim[0]);
  }
  if (isObject(pve) && isObject(sim)) {
    const p = pve as Record<string, unknown>;
    const s = sim as Record<string, unknown>;
    return [...new Set([...Object.keys(p), ...Object.keys(s)])].sort().flatMap((key) => {
      if (!(key in s)) return [`${step}: ${at}.${key} present on PVE only`];
      if (!(key in p)) return [`${step}: ${at}.${key} present on the simulator only`];
      return shapeDifferences(step, `${at}.${key}`, p[key], s[key]);
    });
  }
  const name = (v: unknown) => (Array.isArray(v) ? "array" : isObject(v) ? "object" : String(v));
  return name(pve) === name(sim)
    ? []
    : [`${step}: ${at} is ${name(pve)} on PVE, ${name(sim)} on the simulator`];
}
