/**
 * Turns the engine's event stream into {@link ResourceChange}s. The dynamic provider's diff names
 * no properties (the engine's `diffs` and `detailedDiff` are empty for it), so the properties are
 * found by comparing the step's states: the refresh's old and new outputs (what changed outside
 * Pulumi), then the planned step's old outputs against its new inputs (what the program wants).
 * Pure: fed events, asked for the changes.
 */
import { comparableInput, resolvedInputs } from "../provider/entry";
import type { EngineEvent } from "./automation";
import { same, type PropertyChange, type ResourceChange } from "./report";
import { providerOf } from "./stack-clusters";

type Props = Readonly<Record<string, unknown>>;

interface Seen {
  type: string;
  /** The provider reference the engine made it through (`<urn>::<id>`). */
  provider?: string | undefined;
  refresh?: { old: Props; new: Props; deleted: boolean };
  step?: { op: string; old: Props; inputs: Props; keys: readonly string[] | undefined };
  /** The outputs once the step ran (a command that changes things, not a preview). */
  after?: Props;
}

export interface CollectorOptions {
  /**
   * Record each property's value once the step ran (`up`, `destroy`); a preview's outputs are
   * only planned, so `drift` leaves this off.
   */
  readonly outcome?: boolean | undefined;
}

/** How the engine's event stream marks a secret value (its ciphertext is blinded to `[secret]`). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** What every report prints for a secret value. */
export const SECRET = "[secret]";

/** The value with every secret inside it replaced by `[secret]`: reports never show one. */
function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== "object") return value;
  if (SECRET_SIG in value) return SECRET;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecrets(v)]));
}

const props = (value: unknown): Props => (redactSecrets(value ?? {}) as Props) ?? {};

/** Keys that are plumbing, not properties: never reported. */
const IGNORED = new Set(["__provider", "__pulumiType"]);

export class ChangeCollector {
  readonly #seen = new Map<string, Seen>();
  /** Each provider's endpoint host, from its inputs when its step is reported: `pve.dc2.example.com:8006`. */
  readonly #hosts = new Map<string, string>();
  readonly #errors: string[] = [];
  readonly #outcome: boolean;

  constructor(options: CollectorOptions = {}) {
    this.#outcome = options.outcome === true;
  }

  /** Pass as the automation API's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const diagnostic = event.diagnosticEvent;
    if (diagnostic?.severity === "error") this.#errors.push(diagnostic.message.trim());
    const metadata = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
    if (metadata === undefined) return;
    if (metadata.type.startsWith("pulumi:providers:")) {
      const endpoint =
        metadata.new?.inputs?.["proxmox:endpoint"] ?? metadata.old?.inputs?.["proxmox:endpoint"];
      if (typeof endpoint === "string") this.#hosts.set(metadata.urn, hostOf(endpoint));
      return;
    }
    if (metadata.type === "pulumi:pulumi:Stack") return;
    const seen = this.#seen.get(metadata.urn) ?? { type: metadata.type };
    this.#seen.set(metadata.urn, seen);
    seen.provider ||= metadata.provider || metadata.new?.provider || metadata.old?.provider;
    const old = props(metadata.old?.outputs);
    if (metadata.op === "refresh") {
      // The outputs event carries the read; the pre event only the state before it.
      if (event.resOutputsEvent !== undefined) {
        const now = metadata.new?.outputs === undefined ? undefined : props(metadata.new.outputs);
        seen.refresh = { old, new: now ?? {}, deleted: isGone(old, now) };
      }
      return;
    }
    // A delete's outcome has no new state (the engine sends null).
    const after = metadata.new ?? undefined;
    if (this.#outcome && event.resOutputsEvent !== undefined && after !== undefined) {
      seen.after = props(after.outputs);
    }
    if (event.resourcePreEvent !== undefined || seen.step === undefined) {
      const keys = metadata.detailedDiff
        ? Object.keys(metadata.detailedDiff)
        : (metadata.diffs ?? undefined);
      seen.step = {
        op: metadata.op,
        old,
        inputs: props(metadata.new?.inputs),
        keys: keys === undefined ? undefined : keys.map(topLevel),
      };
    }
  };

  /** Error diagnostics the engine reported (a failed refresh's provider error, …). */
  get errors(): readonly string[] {
    return this.#errors;
  }

  /** Every resource with a step other than `same`, or whose outputs the refresh changed. */
  changes(): ResourceChange[] {
    const out: ResourceChange[] = [];
    for (const [urn, seen] of this.#seen) {
      const op = seen.step?.op ?? "same";
      const name = urn.slice(urn.lastIndexOf("::") + 2);
      const cluster = this.#clusterOf(seen);
      if (seen.refresh?.deleted === true) {
        // One fact, not every output going to "(unset)": the refresh found the VM gone.
        out.push({
          urn,
          type: seen.type,
          name,
          ...cluster,
          op: op === "same" ? "refresh" : op,
          deletedOutside: true,
          properties: [],
        });
        continue;
      }
      const outside = seen.refresh ? changedKeys(seen.refresh.old, seen.refresh.new) : [];
      const planned = op === "update" || op === "replace" ? plannedKeys(seen) : [];
      if (op === "same" && outside.length === 0) continue;
      if ((op === "read" || op === "refresh") && outside.length === 0) continue;
      const names = [...new Set([...planned, ...outside])].sort();
      const inputs = desiredOf(seen);
      out.push({
        urn,
        type: seen.type,
        name,
        ...cluster,
        op: op === "same" ? "refresh" : op,
        properties: names.map((name) => property(name, seen, inputs, planned.includes(name))),
      });
    }
    return out;
  }

  /**
   * The cluster a change is on, when the stack's resources are on more than one: their
   * provider's name (`default`: the stack config's) and, when its step was reported, its
   * endpoint host.
   */
  #clusterOf(seen: Seen): { provider?: string; cluster?: string } {
    const refs = new Set([...this.#seen.values()].map((s) => providerOf(s.provider).urn));
    if (refs.size < 2) return {};
    const { urn, name } = providerOf(seen.provider);
    const host = this.#hosts.get(urn);
    return { provider: name, ...(host === undefined ? {} : { cluster: host }) };
  }
}

/** `https://pve.dc2.example.com:8006/api2/json` → `pve.dc2.example.com:8006`. */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

/** The program's inputs with check's defaults, resolved once per resource. */
function desiredOf(seen: Seen): Readonly<Record<string, unknown>> {
  return seen.step ? resolvedInputs(seen.type, seen.step.inputs) : {};
}

function property(
  name: string,
  seen: Seen,
  inputs: Readonly<Record<string, unknown>>,
  planned: boolean,
): PropertyChange {
  const refresh = seen.refresh;
  const live = refresh ? refresh.new[name] : seen.step?.old[name];
  const changedOutside = refresh !== undefined && !same(refresh.old[name], refresh.new[name]);
  const desired = inputs[name];
  // The engine blinds every secret alike: a planned change that looks like no change is in one.
  const inSecret = planned && same(live, desired) && holdsSecret(desired);
  return {
    property: name,
    ...(refresh === undefined ? {} : { recorded: refresh.old[name] }),
    live,
    ...(planned ? { desired } : {}),
    changedOutside,
    ...(inSecret ? { secretChanged: true as const } : {}),
    ...(seen.after === undefined ? {} : { after: seen.after[name] }),
  };
}

function plannedKeys(seen: Seen): string[] {
  const step = seen.step;
  if (step === undefined) return [];
  if (step.keys !== undefined && step.keys.length > 0)
    return step.keys.filter((k) => !IGNORED.has(k));
  // The engine reports the inputs as the program wrote them: with check's defaults, as diff sees them.
  const inputs = resolvedInputs(seen.type, step.inputs);
  const keys = Object.keys(inputs).filter((key) => !IGNORED.has(key) && inputs[key] !== undefined);
  const differ = keys.filter(
    // Compared as the provider's diff compares them: a reorder of tags is no change here either.
    (key) => !same(comparableInput(key, step.old[key]), comparableInput(key, inputs[key])),
  );
  if (differ.length > 0) return differ;
  // The engine blinds every secret to the same text: when nothing visible differs, the change is
  // in a secret, and those are the candidates.
  return keys.filter((key) => holdsSecret(inputs[key]) || holdsSecret(step.old[key]));
}

function holdsSecret(value: unknown): boolean {
  if (value === SECRET) return true;
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (value && typeof value === "object") return Object.values(value).some(holdsSecret);
  return false;
}

/** A refresh that read nothing back for a resource that had outputs: it was deleted. */
function isGone(old: Props, now: Props | undefined): boolean {
  const had = Object.keys(old).some((key) => !IGNORED.has(key));
  const has = now !== undefined && Object.keys(now).some((key) => !IGNORED.has(key));
  return had && !has;
}

function changedKeys(old: Props, now: Props): string[] {
  const keys = new Set([...Object.keys(old), ...Object.keys(now)]);
  return [...keys].filter((key) => !IGNORED.has(key) && !same(old[key], now[key]));
}

/** `network.bridge` → `network`, `tags[0]` → `tags`. */
function topLevel(path: string): string {
  return /^[^.[]+/.exec(path)?.[0] ?? path;
}
