/**
 * preflight: what `check` cannot know without the API, asked before anything is cloned, so a
 * wrong node, storage (the clone's or a disk's) or template fails with the property to fix instead of leaving a clone
 * behind. Costs four to five reads: the node list, the node's storage list (one request for
 * both storages), its bridges, and the template lookup (the shared cluster listing and the
 * template's config).
 *
 * Each NIC's bridge is looked up too (bridges.ts): PVE takes any bridge name in the config and
 * fails only the start, after everything else is done. So are host devices (host-devices.ts):
 * with a mapping, the release and each mapping (one read each), and a raw id against the login.
 */
import type { NodeStorage } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { PermanentError, isPermanent } from "../../pve/errors";
import { isLinked } from "../identity";
import { assertBridges } from "./bridges";
import { assertHostDevices } from "./host-devices";
import { assertRootOnly } from "./root-only";
import type { ResolvedInputs } from "./resolved-inputs";
import { resolveTemplate, type ResolvedTemplate } from "./resolve-template";

/** How create makes the VM: the template to clone, found on the way, and where to clone it. */
export interface ClonePlan {
  readonly template: ResolvedTemplate;
  /**
   * Set when the clone's disks would be on node-local storage of another node than the
   * template's, which PVE's clone refuses ("VM uses local storage"): the full clone is made on
   * the template's node and then migrated offline, with its local disks, to this node.
   */
  readonly migrateTo?: string | undefined;
}

export async function preflight(ctx: OperationContext, inputs: ResolvedInputs): Promise<ClonePlan> {
  const { node } = inputs;
  const nodes = await ctx.api.nodes();
  const found = nodes.find((n) => n.node === node);
  if (found === undefined) {
    throw invalid(
      node,
      `node: there is no node ${JSON.stringify(node)} in the cluster ` +
        `(nodes: ${nodes.map((n) => n.node).join(", ") || "none"}). Set node to one of them.`,
    );
  }
  if (found.status !== "online") {
    throw invalid(
      node,
      `node: node ${node} is ${found.status}; a VM cannot be cloned onto it. ` +
        "Bring the node back online or set node to an online one.",
    );
  }

  const storages = await ctx.api.nodeStorages(node);
  if (inputs.storage !== undefined) {
    usable(storages, { property: "storage", id: inputs.storage, content: "images", node });
  }
  usable(storages, { property: "isoStorage", id: inputs.isoStorage, content: "iso", node });
  (inputs.disks ?? []).forEach((disk, index) => {
    if (disk.storage !== undefined && disk.remove !== true)
      usable(storages, {
        property: `disks[${index}].storage`,
        id: disk.storage,
        content: "images",
        node,
      });
  });

  // Only an adopted VM may leave the template out, and its create never clones.
  if (inputs.template === undefined) {
    throw new PermanentError(
      "INVALID_PARAM",
      "template: is required to clone the VM; set template to the template to clone.",
      { node },
    );
  }
  await assertBridges(ctx, inputs);
  await assertHostDevices(ctx, inputs);
  assertRootOnly(ctx, inputs as unknown as Readonly<Record<string, unknown>>);

  let template: ResolvedTemplate;
  try {
    template = await resolveTemplate(ctx, inputs.template, node);
  } catch (error) {
    if (!isPermanent(error) || (error.code !== "NOT_FOUND" && error.code !== "INVALID_PARAM")) {
      throw error;
    }
    throw new PermanentError(
      "INVALID_PARAM",
      `template: ${error.message}`,
      { ...error.context, node },
      { cause: error },
    );
  }
  if (template.node === node) return { template };
  // PVE's clone_vm decides by the source's storages, whatever `storage` the copy goes to.
  const local = template.driveStorages.filter(
    (id) => storages.find((s) => s.storage === id)?.shared !== true,
  );
  if (local.length === 0) return { template };
  if (isLinked(inputs)) refuseLinked(template, local, node);
  return { template, migrateTo: node };
}

/**
 * A linked clone shares the template's disks, so it can live on another node only when they are
 * on shared storage, and PVE refuses to migrate it off its base: there is no way to make it there.
 */
function refuseLinked(template: ResolvedTemplate, local: readonly string[], node: string): never {
  throw invalid(
    node,
    `clone: a linked clone shares the drives of template ${template.vmid}, which are on ` +
      `node-local storage (${local.join(", ")}) of node ${template.node}, so it can only be made ` +
      `there. Set node to ${template.node}, or clone: { full: true } for a full copy.`,
  );
}

function usable(
  storages: readonly NodeStorage[],
  want: { property: string; id: string; content: string; node: string },
): void {
  const { property, id, content, node } = want;
  const storage = storages.find((s) => s.storage === id);
  if (storage === undefined) {
    throw invalid(
      node,
      `${property}: storage ${JSON.stringify(id)} does not exist on node ${node}, or the token ` +
        `lacks Datastore.Audit on /storage/${id} (storages it sees there: ` +
        `${storages.map((s) => s.storage).join(", ") || "none"}). ` +
        `Set ${property} to a storage with ${content} content, or grant the privilege.`,
    );
  }
  if (!storage.enabled || !storage.active) {
    throw invalid(
      node,
      `${property}: storage ${id} is ${storage.enabled ? "not active" : "disabled"} on node ${node}. ` +
        `Enable it (and check it is mounted or reachable), or set ${property} to another storage.`,
    );
  }
  if (!storage.content.includes(content)) {
    throw invalid(
      node,
      `${property}: storage ${id} on node ${node} does not hold ${content} content ` +
        `(it holds ${storage.content.join(", ") || "nothing"}). Add ${content} to its content ` +
        `(Datacenter → Storage → ${id}) or set ${property} to a storage that has it.`,
    );
  }
}

const invalid = (node: string, message: string) =>
  new PermanentError("INVALID_PARAM", message, { node });
