/**
 * What sweep reports: one row per orphan it found (and, with `--apply`, what became of it), and
 * the orphans themselves as the find step hands them to the list or delete step.
 */
import { vmLabel } from "../provider/entry";
import type { ExitCode } from "./report";
import type { MarkedVm, SeedIso } from "./sweep-scan";
import type { LeftSnapshot } from "./sweep-snapshots";
import type { MarkedTemplate, TemplateImage } from "./sweep-templates";

export interface SweepItem {
  readonly kind: "vm" | "seed" | "template" | "image" | "snapshot";
  /**
   * `VM 10123 on pve1 (web-1a2b3c)`, `template 10234 on pve1 (…)`, the seed's or image's volid, or
   * `pp-update-… of VM 10123 on pve1`.
   */
  readonly target: string;
  readonly node: string;
  readonly vmid?: number | undefined;
  readonly volid?: string | undefined;
  /** The VM's or template's identity hash (an image's is its template's), or a seed's 12-hex owner prefix. */
  readonly identity: string;
  /** `orphan` in a dry run; `deleted`, `skipped` or `failed` with --apply. */
  readonly action: "orphan" | "deleted" | "skipped" | "failed";
  readonly detail?: string | undefined;
  /** A VM or template whose identity only a pending create of a given state holds: a killed run's. */
  readonly interrupted?: boolean | undefined;
  /** The provider whose cluster it is on (`default`: the stack config's); set by the CLI's sweep. */
  readonly provider?: string | undefined;
}

export interface SweepReport {
  readonly applied: boolean;
  /** How many identities the given states own. */
  readonly ownedIdentities: number;
  /** Marked VMs found that a given state owns (left alone). */
  readonly ownedVms: number;
  readonly items: readonly SweepItem[];
  /** The CLI's sweep: each cluster's part (its rows are also in {@link items}). */
  readonly clusters?: readonly (SweepReport & {
    readonly providers: readonly string[];
    readonly endpoint: string;
  })[];
  /** 1 when a delete failed, else 0. */
  readonly exitCode: ExitCode;
}

/** Whether only a pending create of a given state holds the orphan's identity. */
interface Interrupted {
  readonly interrupted: boolean;
}

/** A seed with why it is listed: no state owns its identity, or it is stale. */
export type OrphanSeed = SeedIso & { readonly why: string };

/** Everything sweep found that no given state owns, and how much it left alone. */
export interface Orphans {
  readonly vms: readonly (MarkedVm & Interrupted)[];
  readonly seeds: readonly OrphanSeed[];
  readonly templates: readonly (MarkedTemplate & Interrupted)[];
  readonly images: readonly (TemplateImage & Interrupted)[];
  /** Snapshots of owned VMs whose protected update never ended. */
  readonly snapshots: readonly LeftSnapshot[];
  readonly ownedIdentities: number;
  readonly ownedVms: number;
}

/** Why an orphan is one, when only a killed `up`'s pending create holds its identity. */
const INTERRUPTED_DETAIL = ", orphan of an interrupted run (only a pending create holds it)";

const killedRun = (orphan: Interrupted) =>
  orphan.interrupted
    ? { why: INTERRUPTED_DETAIL, flag: { interrupted: true } }
    : { why: "", flag: {} };

type Action = SweepItem["action"];

export function vmItem(vm: Orphans["vms"][number], action: Action, detail?: string): SweepItem {
  const killed = killedRun(vm);
  return {
    kind: "vm",
    target: `${vmLabel(vm)} (${vm.name})`,
    node: vm.node,
    vmid: vm.vmid,
    identity: vm.identity,
    action,
    detail:
      (detail ?? `mark phase ${vm.phase}${vm.lock ? `, locked (${vm.lock})` : ""}`) + killed.why,
    ...killed.flag,
  };
}

export function templateItem(
  t: Orphans["templates"][number],
  action: Action,
  detail?: string,
): SweepItem {
  const killed = killedRun(t);
  const found =
    `mark phase ${t.phase}${t.template ? "" : ", not converted yet"}` +
    `${t.lock ? `, locked (${t.lock})` : ""}; image ${t.image}`;
  return {
    kind: "template",
    target: `template ${t.vmid} on ${t.node} (${t.name})`,
    node: t.node,
    vmid: t.vmid,
    identity: t.identity,
    action,
    detail: (detail ?? found) + killed.why,
    ...killed.flag,
  };
}

export function imageItem(
  image: Orphans["images"][number],
  action: Action,
  detail?: string,
): SweepItem {
  return {
    kind: "image",
    target: image.volid,
    node: image.node,
    volid: image.volid,
    identity: image.identity,
    action,
    detail: (detail ?? `${where(image)}; no template references it`) + killedRun(image).why,
  };
}

export function seedItem(seed: OrphanSeed, action: Action, detail?: string): SweepItem {
  return {
    kind: "seed",
    target: seed.volid,
    node: seed.node,
    volid: seed.volid,
    identity: seed.owner,
    action,
    ...(action === "orphan" || detail !== undefined ? { detail: detail ?? seed.why } : {}),
  };
}

/** Where a volume lies: `on local of node pve1`. */
/** A snapshot an interrupted protected update left (sweep-snapshots.ts). */
export function snapshotItem(
  snapshot: LeftSnapshot,
  action: SweepItem["action"],
  detail?: string,
): SweepItem {
  return {
    kind: "snapshot",
    target: `${snapshot.name} of ${vmLabel(snapshot)}`,
    node: snapshot.node,
    vmid: snapshot.vmid,
    identity: snapshot.identity,
    action,
    detail:
      detail ??
      "taken before an update that never ended (an interrupted run); the next `pulumi up` finishes under it",
  };
}

export function where(volume: { readonly storage: string; readonly node: string }): string {
  return `on ${volume.storage} of node ${volume.node}`;
}
