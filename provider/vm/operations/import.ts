/**
 * What `pulumi-proxmox import` reads of existing VMs: each one's inputs as the spec reads them
 * back (spec/import.ts), for a `ProxmoxVm` with `adopt: { vmid }` that adopts it without a
 * change. Refused, naming the VM and what to do: a VMID the cluster does not list, a template,
 * a VM that carries a mark (a stack manages it already). Nothing is ever written.
 */
import type { ClusterVm } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError, vmLabel } from "../../pve/errors";
import { MARK_LINE } from "../description";
import { readMark } from "../identity";
import { importedInputs } from "../spec/import";
import { parseTags } from "../state/vm-facts";
import { checkVm } from "./check";

/** A VM to declare: where it is, its name, its inputs, and what they leave as it is. */
export interface ImportedVm {
  readonly vmid: number;
  readonly node: string;
  /** The VM's own name (an adopted VM keeps it); undefined when it has none. */
  readonly name?: string | undefined;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly notes: readonly string[];
}

/** Which VMs `--all` takes: every one, or those of a pool, a tag, a node. */
export interface ImportFilter {
  readonly pool?: string | undefined;
  readonly tag?: string | undefined;
  readonly node?: string | undefined;
}

/** A VM `--all` passed over, and why. */
export interface SkippedVm {
  readonly vmid: number;
  readonly node: string;
  readonly name?: string | undefined;
  readonly why: string;
}

/** The VM's declaration; refused (a typed error) for a missing VMID, a template, a marked VM. */
export async function importVm(ctx: OperationContext, vmid: number): Promise<ImportedVm> {
  const row = (await ctx.listVms({ fresh: true })).find(
    (vm) => vm.type === "qemu" && vm.vmid === vmid,
  );
  if (row === undefined) {
    throw new PermanentError(
      "NOT_FOUND",
      `VM ${vmid} does not exist in the cluster: check the VMID ` +
        "(`pvesh get /cluster/resources --type vm` lists them).",
      { vmid },
    );
  }
  const found = await inspect(ctx, row);
  if ("why" in found) throw new PermanentError(found.code, found.why, { node: row.node, vmid });
  const { tags: _tags, ...vm } = found;
  return vm;
}

/** A declaration for each VM the filter takes; templates and marked VMs are passed over. */
export async function importVms(
  ctx: OperationContext,
  filter: ImportFilter,
): Promise<{ readonly vms: ImportedVm[]; readonly skipped: SkippedVm[] }> {
  const rows = (await ctx.listVms({ fresh: true }))
    .filter((vm) => vm.type === "qemu")
    .filter((vm) => filter.node === undefined || vm.node === filter.node)
    .filter((vm) => filter.pool === undefined || vm.pool === filter.pool)
    .sort((a, b) => a.vmid - b.vmid);
  const vms: ImportedVm[] = [];
  const skipped: SkippedVm[] = [];
  for (const row of rows) {
    const found = await inspect(ctx, row);
    if (filter.tag !== undefined && !found.tags.includes(filter.tag.toLowerCase())) continue;
    if ("why" in found)
      skipped.push({ vmid: row.vmid, node: row.node, name: row.name, why: found.why });
    else vms.push(found);
  }
  return { vms, skipped };
}

type Refusal = {
  readonly code: "INVALID_PARAM" | "CONFLICT";
  readonly why: string;
  readonly tags: string[];
};

async function inspect(
  ctx: OperationContext,
  row: ClusterVm,
): Promise<(ImportedVm | Refusal) & { readonly tags: string[] }> {
  const [known, status] = await Promise.all([
    ctx.api.vmPending(row.node, row.vmid),
    ctx.api.vmStatus(row.node, row.vmid),
  ]);
  const config = known.config;
  const label = vmLabel(row);
  const tags = parseTags(config.tags);
  if (config.template) {
    return {
      code: "INVALID_PARAM",
      tags,
      why:
        `${label} is a template: import declares VMs (a ProxmoxVm clones it with ` +
        `\`template: ${row.vmid}\`).`,
    };
  }
  if (MARK_LINE.test(config.description ?? "")) {
    return { code: "CONFLICT", tags, why: `${label} ${owner(config.description)}` };
  }
  const derived = importedInputs({
    config,
    running: status.status === "running",
    pool: row.pool,
  });
  return {
    vmid: row.vmid,
    node: row.node,
    name: config.name,
    tags,
    ...checked(row, derived.inputs, derived.notes),
  };
}

/** Who a marked VM belongs to, as the mark says. */
function owner(description: string | undefined): string {
  const mark = readMark(description);
  const by = mark?.adoptedBy;
  const head =
    by !== undefined
      ? `is managed by resource ${by.name} of stack ${by.project}/${by.stack}`
      : "carries the mark of a VM a pulumi-proxmox stack manages";
  return `${head}: that stack's program declares it already, so there is nothing to import.`;
}

/**
 * The inputs as `check` takes them beside `node` and `adopt`: an input it refuses is left out and
 * named, so the declaration always passes.
 */
function checked(
  row: ClusterVm,
  inputs: Readonly<Record<string, unknown>>,
  notes: readonly string[],
): Pick<ImportedVm, "inputs" | "notes"> {
  let kept: Record<string, unknown> = { ...inputs };
  const more: string[] = [];
  for (let round = 0; round < 3; round++) {
    const { failures } = checkVm(
      {},
      {
        identity: { project: "import", stack: "import", name: "vm" },
        node: row.node,
        adopt: { vmid: row.vmid },
        ...kept,
      },
    );
    const refused = [...new Set(failures.map((f) => f.property.split(/[.[]/)[0] ?? ""))].filter(
      (name) => name in kept,
    );
    if (refused.length === 0) break;
    for (const name of refused) {
      const reason = failures.find((f) => f.property.split(/[.[]/)[0] === name)?.reason ?? "";
      more.push(`${name}: left out, so the VM keeps its value: ${reason}`);
      kept = Object.fromEntries(Object.entries(kept).filter(([key]) => key !== name));
    }
  }
  return { inputs: kept, notes: [...notes, ...more] };
}
