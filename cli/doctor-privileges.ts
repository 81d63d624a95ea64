/**
 * The privileges the provider's operations need, on the ACL paths PVE checks them
 * (as pve-access-control and qemu-server check them), and how to read a token's effective privileges on a path from
 * `GET /access/permissions`. Pure.
 */
import type { Permissions } from "../provider/entry";

/** One privilege (or a `|`-joined any-of list) on one ACL path, and what needs it. */
export interface Requirement {
  /** `VM.Clone`, or `VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted` for an any-of check. */
  readonly privilege: string;
  readonly path: string;
  readonly why: string;
  /**
   * A broader grant PVE accepts instead (its check's `or`): every privilege listed, on `path`.
   * The role recommends the narrower `privilege`; a token holding this passes too.
   */
  readonly alternative?: { readonly privileges: readonly string[]; readonly path: string };
}

export interface RequirementInput {
  readonly templateVmid: number | undefined;
  readonly diskStorages: readonly string[];
  readonly isoStorage: string;
  readonly bridges: readonly string[];
  readonly nodes: readonly string[];
  /** The resource pools the VMs are put in (`pool`); none when not told. */
  readonly pools?: readonly string[] | undefined;
  /** PVE's major version: SDN.Use from 8, the guest-agent privileges from 9. */
  readonly pveMajor: number;
  /** The resource mappings the VMs use (`hostPci`, `usb`, `virtiofs`); none when not told. */
  readonly mappings?: readonly ResourceMappingUse[] | undefined;
  /** The storages of a CloudImageTemplate the program makes on `nodes`, when it makes one. */
  readonly cloudImage?: { readonly importStorage: string; readonly storage: string } | undefined;
}

/** One resource mapping a stack's VMs use: `pci` `gpu0` for `hostPci: [{ mapping: "gpu0" }]`. */
export interface ResourceMappingUse {
  readonly type: "pci" | "usb" | "dir";
  readonly id: string;
}

const MAPPING_INPUT = { pci: "hostPci", usb: "usb", dir: "virtiofs" } as const;

/** The name of the role `doctor` tells the admin to create. */
const ROLE_NAME = "PulumiProxmox";

export function requirements(input: RequirementInput): Requirement[] {
  const out: Requirement[] = [];
  const add = (privilege: string, path: string, why: string) => out.push({ privilege, path, why });
  if (input.templateVmid !== undefined) {
    const template = `/vms/${input.templateVmid}`;
    add("VM.Audit", template, "read the template's config");
    add("VM.Clone", template, "clone the template");
  }
  // New VMIDs are not known in advance: the privileges must propagate from /vms.
  add(
    "VM.Allocate",
    "/vms",
    input.cloudImage === undefined
      ? "create (clone into) and destroy VMs"
      : "create (clone into) and destroy VMs; create the template's VM and convert it",
  );
  add("VM.Audit", "/vms", "list and read VMs (refresh, delete, sweep)");
  add("VM.Config.CPU", "/vms", "set cores, cpu (units, limit) and NUMA nodes (numa)");
  add("VM.Config.Memory", "/vms", "set memory");
  add("VM.Config.Network", "/vms", "set, add and remove NICs (net0, net1…), their trunks and link");
  add("VM.Config.Options", "/vms", "set name, description (the identity mark), tags, agent");
  add("VM.Config.CDROM", "/vms", "attach the cloud-init seed ISO (ide2)");
  add(
    "VM.Config.Disk",
    "/vms",
    "add, grow, move and detach disks (diskSize, disks) and set their I/O limits and aio; add " +
      "efiDisk, tpm; set boot",
  );
  add(
    "VM.Config.HWType",
    "/vms",
    "set machine, scsihw, vga, serial; the watchdog, rng and audio devices",
  );
  add("VM.PowerMgmt", "/vms", "start, stop, shut down and reboot VMs");
  add(
    "VM.Migrate",
    "/vms",
    "move a clone from its template's node, and a moved VM back (nodeDrift)",
  );
  add(
    input.pveMajor >= 9 ? "VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted" : "VM.Monitor",
    "/vms",
    "read the guest agent's addresses",
  );
  for (const storage of input.diskStorages) {
    add("Datastore.AllocateSpace", `/storage/${storage}`, "allocate the clone's disks");
  }
  const iso = `/storage/${input.isoStorage}`;
  add("Datastore.AllocateTemplate", iso, "upload the seed ISO");
  add("Datastore.Allocate", iso, "delete seed ISOs");
  add("Datastore.Audit", iso, "list seed ISOs and attach them");
  if (input.pveMajor >= 8) {
    for (const bridge of input.bridges) {
      // GET /nodes/{node}/network lists a bridge only with SDN.Audit or SDN.Use on it
      // (pve-manager API2/Network.pm `index`): the bridge check before a clone needs it too.
      add(
        "SDN.Use",
        `/sdn/zones/localnetwork/${bridge}`,
        `use bridge ${bridge} (clone, NICs) and find it in the node's bridges (checked before a clone)`,
      );
    }
  }
  for (const node of input.nodes) {
    add("Sys.Audit", `/nodes/${node}`, "read task status and node state");
  }
  // A clone joins its pool with VM.Allocate; a later change of `pool` is a pool update.
  for (const pool of input.pools ?? []) {
    add("Pool.Allocate", `/pool/${pool}`, `move VMs into and out of pool ${pool}`);
  }
  // qemu-server check_hostpci_perm / check_usb_perm / check_dir_perm: Mapping.Use on the id to
  // put it in a config; any of Mapping.Use/Audit/Modify to read its node entries (pve-manager
  // API2/Cluster/Mapping/*.pm get), which the provider does before a clone.
  for (const { type, id } of input.mappings ?? []) {
    const path = `/mapping/${type}/${id}`;
    add("Mapping.Use", path, `give VMs ${MAPPING_INPUT[type]} mapping ${id}`);
    add("Mapping.Audit|Mapping.Use", path, `read ${id}'s node entries (checked before a clone)`);
  }
  if (input.cloudImage !== undefined) out.push(...cloudImageRequirements(input, input.cloudImage));
  return onePerGrant(out);
}

/**
 * One row per privilege and path, its reasons joined: the image storage is often the ISO
 * storage (`local`), and what both need there is one grant, not two rows.
 */
function onePerGrant(requirements: readonly Requirement[]): Requirement[] {
  const byGrant = new Map<string, Requirement>();
  for (const requirement of requirements) {
    const key = `${requirement.privilege} ${requirement.path}`;
    const seen = byGrant.get(key);
    byGrant.set(
      key,
      seen === undefined ? requirement : { ...seen, why: `${seen.why}; ${requirement.why}` },
    );
  }
  return [...byGrant.values()];
}

/**
 * What a CloudImageTemplate adds: the download (PVE's `download-url` checks
 * Datastore.AllocateTemplate on the storage, and Sys.AccessNetwork on the node or Sys.Audit +
 * Sys.Modify on `/`), the import (reading an `import` volume takes Datastore.Audit or
 * Datastore.AllocateSpace on its storage), the template's disk, and the image's delete. The disk
 * storage's row is left out when the clones already need it.
 */
function cloudImageRequirements(
  input: RequirementInput,
  storages: { readonly importStorage: string; readonly storage: string },
): Requirement[] {
  const image = `/storage/${storages.importStorage}`;
  const out: Requirement[] = [
    { privilege: "Datastore.AllocateTemplate", path: image, why: "download the cloud image" },
    {
      privilege: "Datastore.Audit|Datastore.AllocateSpace",
      path: image,
      why: "list the downloaded image and import it into the template's disk",
    },
    { privilege: "Datastore.Allocate", path: image, why: "delete the downloaded image" },
  ];
  if (!input.diskStorages.includes(storages.storage)) {
    out.push({
      privilege: "Datastore.AllocateSpace",
      path: `/storage/${storages.storage}`,
      why: "allocate the template's disk",
    });
  }
  for (const node of input.nodes) {
    out.push({
      privilege: "Sys.AccessNetwork",
      path: `/nodes/${node}`,
      why: "let PVE fetch the image's URL (download-url)",
      alternative: { privileges: ["Sys.Audit", "Sys.Modify"], path: "/" },
    });
  }
  return out;
}

/**
 * The privileges a token has on `path`, from the answer of `GET /access/permissions` (which lists
 * every path of the ACL tree, each privilege with its propagate flag): the deepest listed path
 * at or above `path` decides; above `path`, only propagated privileges count.
 */
export function privilegesOn(permissions: Permissions, path: string): Set<string> {
  const parts = path.split("/").filter((part) => part !== "");
  for (let depth = parts.length; depth >= 0; depth--) {
    const level = depth === 0 ? "/" : `/${parts.slice(0, depth).join("/")}`;
    const privs = permissions[level];
    if (privs === undefined) continue;
    const exact = depth === parts.length;
    return new Set(
      Object.entries(privs)
        .filter(([, propagate]) => exact || propagate === 1)
        .map(([privilege]) => privilege),
    );
  }
  return new Set();
}

/** Whether the token satisfies one requirement (any of a `|` list). */
export function satisfied(permissions: Permissions, requirement: Requirement): boolean {
  const have = privilegesOn(permissions, requirement.path);
  if (requirement.privilege.split("|").some((privilege) => have.has(privilege))) return true;
  const alternative = requirement.alternative;
  if (alternative === undefined) return false;
  const broader = privilegesOn(permissions, alternative.path);
  return alternative.privileges.every((privilege) => broader.has(privilege));
}

/**
 * The `pveum` lines that create the minimal role and grant it where something is missing: the
 * role holds every privilege `needs` lists (the first of an any-of list), and is granted on the
 * fewest paths that cover the `missing` ones. Nothing missing, no lines.
 */
export function roleCommands(
  needs: readonly Requirement[],
  login: { readonly tokenId: string } | { readonly username: string },
  missing: readonly Requirement[] = needs,
): string[] {
  if (missing.length === 0) return [];
  const privileges = [...new Set(needs.map((need) => need.privilege.split("|")[0] ?? ""))].sort();
  const paths = [...new Set(missing.map((need) => need.path))].sort();
  const minimal = paths.filter(
    (path) => !paths.some((other) => other !== path && path.startsWith(`${other}/`)),
  );
  // A password login has only its user's ACLs; a token has those of its user as well.
  const user = "tokenId" in login ? (login.tokenId.split("!")[0] ?? login.tokenId) : login.username;
  return [
    `pveum role add ${ROLE_NAME} -privs "${privileges.join(" ")}"`,
    ...minimal.flatMap((path) => [
      `pveum acl modify ${path} -user '${user}' -role ${ROLE_NAME}`,
      ...("tokenId" in login
        ? [`pveum acl modify ${path} -token '${login.tokenId}' -role ${ROLE_NAME}`]
        : []),
    ]),
  ];
}
