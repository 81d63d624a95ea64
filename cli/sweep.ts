/**
 * `pulumi-proxmox sweep`: lists the VMs, seed ISOs, templates and downloaded images that carry
 * this package's mark but that no given stack's state owns — the leftovers of killed runs or lost
 * state — and, with `--apply`, removes them with the provider's own ordered deletes: VMs first
 * (stop → seeds → destroy), then templates (refused while linked clones exist), then images and
 * seeds nothing references. A VM or template without the mark, or whose identity a given state
 * holds, is never touched.
 */
import { HttpProxmoxApi } from "../provider/pve/api/http-api";
import { retryingApi } from "../provider/pve/api/retrying-api";
import type { ProxmoxApi } from "../provider/pve/api/proxmox-api";
import type { ConnectionConfig } from "../provider/pve/config";
import { operationContext, type OperationContext } from "../provider/pve/context";
import { deleteMarkedVm } from "../provider/entry";
import { hasCode } from "../provider/pve/errors";
import { deleteImage, deleteTemplate } from "../provider/template/delete";
import { CONNECTION_FLAGS, CONNECTION_HELP, connectionFrom, parseFlags, type Io } from "./args";
import type { StackSelection } from "./automation";
import { UsageError, writeReport, type ExitCode } from "./report";
import { readOwners } from "./sweep-owners";
import {
  isStaleSeed,
  readVmConfigs,
  scanVms,
  seedIsos,
  stateSeeds,
  type MarkedVm,
} from "./sweep-scan";
import {
  scanTemplates,
  templateImages,
  type MarkedTemplate,
  type TemplateImage,
} from "./sweep-templates";

export interface SweepOptions {
  readonly connection: ConnectionConfig;
  /** The stacks whose states own VMs; at least one stack or state file is required. */
  readonly stacks: readonly StackSelection[];
  /** Files written by `pulumi stack export`, for stacks not reachable from here. */
  readonly stateFiles?: readonly string[] | undefined;
  /** Delete the orphans (default: only list them). */
  readonly apply?: boolean | undefined;
  /** Budget per PVE task (stop, seed delete, destroy); default 5 minutes. */
  readonly taskMs?: number | undefined;
  /** Progress lines; default: none. */
  readonly onProgress?: ((line: string) => void) | undefined;
  /** The seam to use instead of HTTP (tests). */
  readonly api?: ProxmoxApi | undefined;
  /** Only these identities (and their seeds) are considered: `destroy` cleans its own run's. */
  readonly only?: ReadonlySet<string> | undefined;
}

export interface SweepItem {
  readonly kind: "vm" | "seed" | "template" | "image";
  /** `VM 10123 on pve1 (web-1a2b3c)`, `template 10234 on pve1 (…)`, or the seed's or image's volid. */
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
}

export interface SweepReport {
  readonly applied: boolean;
  /** How many identities the given states own. */
  readonly ownedIdentities: number;
  /** Marked VMs found that a given state owns (left alone). */
  readonly ownedVms: number;
  readonly items: readonly SweepItem[];
  /** 1 when a delete failed, else 0. */
  readonly exitCode: ExitCode;
}

/** Why an orphan is one, when only a killed `up`'s pending create holds its identity. */
const INTERRUPTED_DETAIL = ", orphan of an interrupted run (only a pending create holds it)";

const NO_STATE =
  "sweep needs at least one --stack or --state-file: without a state, every marked VM would look orphaned";

export async function sweep(options: SweepOptions): Promise<SweepReport> {
  if (options.stacks.length === 0 && (options.stateFiles?.length ?? 0) === 0) {
    throw new UsageError(NO_STATE);
  }
  const {
    owned,
    interrupted,
    templates: templateOwners,
  } = await readOwners({
    stacks: options.stacks,
    stateFiles: options.stateFiles,
  });
  const ownedOwners = new Set([...owned].map((id) => id.slice(0, 12)));
  const only = options.only;
  const onlyOwners = only && new Set([...only].map((id) => id.slice(0, 12)));
  const progress = options.onProgress ?? (() => undefined);
  const api =
    options.api ??
    retryingApi(new HttpProxmoxApi({ connection: options.connection }), { progress });

  const states = await stateSeeds({ stacks: options.stacks, stateFiles: options.stateFiles });
  const considered = (identity: string) => only === undefined || only.has(identity);
  // One read of every VM's config serves both scans.
  const configs = await readVmConfigs(api);
  const { marked: vms, attached } = scanVms(configs);
  const orphanVms = vms.filter((vm) => !owned.has(vm.identity) && considered(vm.identity));
  const seedDetail = new Map<string, string>();
  const orphanSeeds = (await seedIsos(api)).filter((seed) => {
    if (onlyOwners !== undefined && !onlyOwners.has(seed.owner)) return false;
    if (!ownedOwners.has(seed.owner)) return true;
    if (!isStaleSeed(seed, attached, states)) return false;
    seedDetail.set(
      `${seed.node}/${seed.volid}`,
      `on ${seed.storage}; stale: its identity is owned, but no VM has it attached and no state records it`,
    );
    return true;
  });
  const marked = scanTemplates(configs);
  const orphanTemplates = marked.filter(
    (t) => !templateOwners.owned.has(t.identity) && considered(t.identity),
  );
  // An image a marked template names goes with that template (or stays with it).
  const referenced = new Set(marked.map((t) => t.image));
  const orphanImages = (await templateImages(api)).filter(
    (image) =>
      !templateOwners.owned.has(image.identity) &&
      !referenced.has(image.volid) &&
      considered(image.identity),
  );
  const killedRun = (identity: string) =>
    templateOwners.interrupted.has(identity) ? INTERRUPTED_DETAIL : "";
  const templateItem = (
    t: MarkedTemplate,
    action: SweepItem["action"],
    detail?: string,
  ): SweepItem => ({
    kind: "template",
    target: `template ${t.vmid} on ${t.node} (${t.name})`,
    node: t.node,
    vmid: t.vmid,
    identity: t.identity,
    action,
    detail:
      (detail ??
        `mark phase ${t.phase}${t.template ? "" : ", not converted yet"}` +
          `${t.lock ? `, locked (${t.lock})` : ""}; image ${t.image}`) + killedRun(t.identity),
    ...(templateOwners.interrupted.has(t.identity) ? { interrupted: true } : {}),
  });
  const imageItem = (
    image: TemplateImage,
    action: SweepItem["action"],
    detail?: string,
  ): SweepItem => ({
    kind: "image",
    target: image.volid,
    node: image.node,
    volid: image.volid,
    identity: image.identity,
    action,
    detail:
      (detail ?? `on ${image.storage} of node ${image.node}; no template references it`) +
      killedRun(image.identity),
  });
  const items: SweepItem[] = [];
  const vmItem = (vm: MarkedVm, action: SweepItem["action"], detail?: string): SweepItem => {
    const killed = interrupted.has(vm.identity);
    const why = killed ? INTERRUPTED_DETAIL : "";
    return {
      kind: "vm",
      target: `VM ${vm.vmid} on ${vm.node} (${vm.name})`,
      node: vm.node,
      vmid: vm.vmid,
      identity: vm.identity,
      action,
      detail: (detail ?? `mark phase ${vm.phase}${vm.lock ? `, locked (${vm.lock})` : ""}`) + why,
      ...(killed ? { interrupted: true } : {}),
    };
  };

  if (options.apply !== true) {
    items.push(...orphanVms.map((vm) => vmItem(vm, "orphan")));
    items.push(
      ...orphanSeeds.map((seed) => ({
        kind: "seed" as const,
        target: seed.volid,
        node: seed.node,
        volid: seed.volid,
        identity: seed.owner,
        action: "orphan" as const,
        detail: seedDetail.get(`${seed.node}/${seed.volid}`) ?? `on ${seed.storage}`,
      })),
    );
    items.push(...orphanTemplates.map((t) => templateItem(t, "orphan")));
    items.push(...orphanImages.map((image) => imageItem(image, "orphan")));
    return {
      applied: false,
      ownedIdentities: owned.size,
      ownedVms: vms.filter((vm) => owned.has(vm.identity)).length,
      items,
      exitCode: 0,
    };
  }

  const ctx = sweepContext(api, progress);
  const taskMs = options.taskMs ?? 5 * 60_000;
  for (const vm of orphanVms) {
    if (vm.lock !== undefined) {
      items.push(
        vmItem(vm, "skipped", `locked (${vm.lock}): a task may still run on it; sweep again later`),
      );
      continue;
    }
    try {
      await deleteMarkedVm(ctx, vm, taskMs);
      items.push(vmItem(vm, "deleted", "stopped, seeds deleted, destroyed"));
    } catch (error) {
      items.push(vmItem(vm, "failed", (error as Error).message));
    }
  }
  // Templates after the VMs, which may be their linked clones; each delete refuses while a
  // linked clone is left, and takes the template's image with it.
  for (const t of orphanTemplates) {
    if (t.lock !== undefined) {
      items.push(
        templateItem(
          t,
          "skipped",
          `locked (${t.lock}): a task may still run on it; sweep again later`,
        ),
      );
      continue;
    }
    try {
      await deleteTemplate(ctx, {
        vmid: t.vmid,
        vmName: t.name,
        identityHash: t.identity,
        imageVolid: t.image,
        importStorage: t.image.split(":")[0] ?? "",
        storage: t.storage,
        timeouts: { taskMs },
      });
      items.push(templateItem(t, "deleted", `destroyed, image ${t.image} deleted`));
    } catch (error) {
      const refused = hasCode(error, "CONFLICT");
      items.push(templateItem(t, refused ? "skipped" : "failed", (error as Error).message));
    }
  }
  for (const image of orphanImages) {
    try {
      await deleteImage(ctx, { imageVolid: image.volid, importStorage: image.storage }, taskMs);
      items.push(imageItem(image, "deleted"));
    } catch (error) {
      items.push(imageItem(image, "failed", (error as Error).message));
    }
  }
  // Seeds left: those of VMs long gone (deleteVm removed the seeds of the VMs it deleted).
  const remaining = new Set((await seedIsos(api)).map((seed) => `${seed.node}/${seed.volid}`));
  for (const seed of orphanSeeds) {
    const base = {
      kind: "seed" as const,
      target: seed.volid,
      node: seed.node,
      volid: seed.volid,
      identity: seed.owner,
    };
    if (!remaining.has(`${seed.node}/${seed.volid}`)) {
      items.push({ ...base, action: "deleted", detail: "with its VM" });
      continue;
    }
    try {
      progress(`deleting ${seed.volid} on ${seed.node}`);
      const upid = await api.deleteVolume(seed.node, seed.storage, seed.volid);
      if (upid)
        await ctx.waitForTask(seed.node, upid, {
          budgetMs: taskMs,
          step: `deleting ${seed.volid}`,
        });
      items.push({ ...base, action: "deleted" });
    } catch (error) {
      items.push({ ...base, action: "failed", detail: (error as Error).message });
    }
  }
  return {
    applied: true,
    ownedIdentities: owned.size,
    ownedVms: vms.filter((vm) => owned.has(vm.identity)).length,
    items,
    exitCode: items.some((item) => item.action === "failed") ? 1 : 0,
  };
}

/** The operations' context, built on the CLI's client: progress goes to the sweep's lines. */
function sweepContext(api: ProxmoxApi, progress: (line: string) => void): OperationContext {
  return operationContext(api, () => api.clusterVms(), {
    progress,
    warn: (message) => progress(`warning: ${message}`),
  });
}

function formatSweep(report: SweepReport): string {
  const lines = [
    `Owned by the given stacks: ${report.ownedIdentities} identities, ${report.ownedVms} marked VM(s) left alone.`,
  ];
  if (report.items.length === 0) lines.push("No orphans.");
  else {
    const width = Math.max(...report.items.map((i) => i.target.length));
    const kinds = Math.max(4, ...report.items.map((i) => i.kind.length));
    lines.push(
      "",
      `${"ACTION".padEnd(8)}  ${"KIND".padEnd(kinds)}  ${"TARGET".padEnd(width)}  DETAIL`,
    );
    for (const i of report.items) {
      lines.push(
        `${i.action.padEnd(8)}  ${i.kind.padEnd(kinds)}  ${i.target.padEnd(width)}  ${i.detail ?? ""}`,
      );
    }
    if (!report.applied)
      lines.push("", "Dry run: nothing was deleted. Run again with --apply to delete these.");
  }
  return `${lines.join("\n")}\n`;
}

const HELP = `Usage: pulumi-proxmox sweep [--cwd DIR] --stack NAME [--stack NAME ...] [--apply]

Lists VMs, seed ISOs, templates and downloaded images that carry pulumi-proxmox's mark but that
no given stack owns; --apply deletes them (VMs, then templates without linked clones, then images
and seeds). Give EVERY stack that manages VMs or templates on this cluster.

  --stack NAME            a stack whose state owns VMs or templates (repeatable; uses the --cwd before it)
  --cwd DIR               the program directory of the --stack flags that follow
  --state-file FILE       a \`pulumi stack export\` file (repeatable)
  --backend URL           the state backend for every --stack
  --apply                 delete the orphans (default: dry run)
  --report FILE           also write the JSON report there

${CONNECTION_HELP}`;

export async function sweepCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values, tokens } = parseFlags(argv, {
    ...CONNECTION_FLAGS,
    stack: { type: "string", multiple: true },
    cwd: { type: "string", multiple: true },
    "state-file": { type: "string", multiple: true },
    backend: { type: "string" },
    apply: { type: "boolean" },
    report: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  // Each --stack reads its state from the program directory given before it.
  const stacks: StackSelection[] = [];
  let cwd: string | undefined;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    if (token.name === "cwd") cwd = token.value;
    if (token.name === "stack" && token.value !== undefined) {
      stacks.push({ stack: token.value, cwd, backend: values.backend });
    }
  }
  if (stacks.length === 0 && (values["state-file"]?.length ?? 0) === 0) {
    throw new UsageError(NO_STATE);
  }
  const report = await sweep({
    connection: connectionFrom(values),
    stacks,
    stateFiles: values["state-file"],
    apply: values.apply === true,
    onProgress: (line) => io.stdout(`pulumi-proxmox: ${line}\n`),
  });
  io.stdout(formatSweep(report));
  if (values.report !== undefined) writeReport(values.report, report);
  return report.exitCode;
}
