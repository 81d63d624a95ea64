/**
 * What `check` cannot know about host devices and shares without the connection, asked before
 * anything is cloned or written (PVE would refuse only the write, or only the VM's start):
 * - a raw host id (`hostPci[i].host`, `usb[i].host`) with a login that is not root@pam: qemu-server
 *   lets only root@pam set one (`PVE/API2/Qemu.pm` `check_hostpci_perm`, `check_usb_perm`);
 * - virtiofs before PVE 8.4 and mappings before 8.0, which those releases do not have;
 * - a mapping that does not exist, or has no entry for the VM's node: PVE takes it in the config
 *   and fails the start (`PVE/QemuServer/PCI.pm` `parse_hostpci`, "PCI device mapping not found").
 */
import type { CheckFailure } from "../../inputs/check-failure";
import { containsUnknown } from "../../inputs/unknown";
import type { MappingType } from "../../pve/api/proxmox-api";
import type { OperationContext } from "../../pve/context";
import { hasCode, PermanentError } from "../../pve/errors";
import type { HostPci, Usb, Virtiofs } from "../spec/passthrough";

/** What the lookups read of the inputs. */
export interface HostDeviceInputs {
  readonly node: string;
  readonly hostPci?: readonly HostPci[] | undefined;
  readonly usb?: readonly Usb[] | undefined;
  readonly virtiofs?: readonly Virtiofs[] | undefined;
}

interface Use {
  readonly property: string;
  readonly type: MappingType;
  readonly id: string;
}

const LABEL: Readonly<Record<MappingType, string>> = { pci: "PCI", usb: "USB", dir: "directory" };

function mappingsOf(inputs: HostDeviceInputs): Use[] {
  const devices = (list: readonly { mapping?: string | undefined }[] | undefined, name: string) =>
    (list ?? []).flatMap((d, i) => (d.mapping === undefined ? [] : [{ i, id: d.mapping, name }]));
  return [
    ...devices(inputs.hostPci, "hostPci").map((u) => ({ ...u, type: "pci" as const })),
    ...devices(inputs.usb, "usb").map((u) => ({ ...u, type: "usb" as const })),
    ...devices(inputs.virtiofs, "virtiofs").map((u) => ({ ...u, type: "dir" as const })),
  ].map(({ i, id, name, type }) => ({ property: `${name}[${i}].mapping`, type, id }));
}

/** Raw host ids the login may not set: only root@pam (a password login) may. */
export function rawIdFailures(
  inputs: HostDeviceInputs,
  caller: string | undefined,
): CheckFailure[] {
  if (caller === undefined || caller === "root@pam") return [];
  const who = caller.includes("!") ? `the API token ${caller}` : `user ${caller}`;
  const raw = (
    list: readonly { host?: string | undefined }[] | undefined,
    name: string,
    kind: string,
  ) =>
    (list ?? []).flatMap((device, i) =>
      device.host === undefined
        ? []
        : [
            {
              property: `${name}[${i}].host`,
              reason:
                `is a raw host ${kind} id, which PVE lets only root@pam set, and ${who} is not ` +
                `root@pam. Use a resource mapping instead (${name}[${i}].mapping, with Mapping.Use ` +
                `on /mapping/${kind === "PCI" ? "pci" : "usb"}/<id>), or log in as root@pam with ` +
                "a password (proxmox:username and proxmox:password) for this stack.",
            },
          ],
    );
  return [...raw(inputs.hostPci, "hostPci", "PCI"), ...raw(inputs.usb, "usb", "USB")];
}

const atLeast = (release: string, major: number, minor: number) => {
  const [a = 0, b = 0] = release.split(".").map(Number);
  return a > major || (a === major && b >= minor);
};

/** The release's limits, and each mapping's entry for the node, by asking PVE. */
export async function mappingFailures(
  ctx: OperationContext,
  inputs: HostDeviceInputs,
): Promise<CheckFailure[]> {
  const uses = mappingsOf(inputs);
  if (uses.length === 0) return [];
  const { release, version } = await ctx.api.version();
  if ((inputs.virtiofs ?? []).length > 0 && !atLeast(release, 8, 4))
    return [
      {
        property: "virtiofs",
        reason: `needs PVE 8.4 or later, and this cluster runs PVE ${version}: remove virtiofs, or upgrade the cluster.`,
      },
    ];
  if (!atLeast(release, 8, 0))
    return uses.map(({ property }) => ({
      property,
      reason: `resource mappings need PVE 8.0 or later, and this cluster runs PVE ${version}.`,
    }));
  const failures: CheckFailure[] = [];
  for (const { property, type, id } of uses) {
    const reason = await entryProblem(ctx, type, id, inputs.node);
    if (reason !== undefined) failures.push({ property, reason });
  }
  return failures;
}

async function entryProblem(
  ctx: OperationContext,
  type: MappingType,
  id: string,
  node: string,
): Promise<string | undefined> {
  const where = `/mapping/${type}/${id}`;
  try {
    const nodes = (await ctx.api.resourceMapping(type, id)).map.map(
      (entry) => /(?:^|,)node=([^,]+)/.exec(entry)?.[1] ?? "",
    );
    if (nodes.includes(node)) return undefined;
    return (
      `the ${LABEL[type]} resource mapping ${JSON.stringify(id)} has no entry for node ${node} ` +
      `(it has: ${nodes.join(", ") || "none"}), and PVE would refuse the VM's start there. Add ` +
      `${node}'s device to the mapping (Datacenter → Resource Mappings), or set node to one of them.`
    );
  } catch (error) {
    if (hasCode(error, "NOT_FOUND"))
      return `there is no ${LABEL[type]} resource mapping ${JSON.stringify(id)} (Datacenter → Resource Mappings, or pvesh create /cluster/mapping/${type}).`;
    if (hasCode(error, "FORBIDDEN"))
      return `the login may not read or use the mapping: grant it Mapping.Use on ${where}.`;
    throw error;
  }
}

/**
 * The lookups as `check` runs them: never for unknown values; the raw-id rule always (it asks
 * nothing), the mappings only for a new VM or changed devices or node, and silent when a lookup
 * itself fails (create looks again and reports that failure).
 */
export async function hostDeviceFailures(
  context: () => Promise<OperationContext>,
  olds: Readonly<Record<string, unknown>>,
  inputs: Readonly<Record<string, unknown>>,
): Promise<CheckFailure[]> {
  const keys = ["node", "hostPci", "usb", "virtiofs"];
  if (keys.some((key) => containsUnknown(inputs[key]))) return [];
  const now = inputs as unknown as HostDeviceInputs;
  if (mappingsOf(now).length === 0 && rawIdFailures(now, "-").length === 0) return [];
  try {
    const ctx = await context();
    const raw = rawIdFailures(now, ctx.caller);
    const same = keys.every((key) => JSON.stringify(olds[key]) === JSON.stringify(inputs[key]));
    return same ? raw : [...raw, ...(await mappingFailures(ctx, now))];
  } catch {
    return [];
  }
}

/** The lookups as create's preflight runs them: the first problem fails the create. */
export async function assertHostDevices(
  ctx: OperationContext,
  inputs: HostDeviceInputs,
): Promise<void> {
  const [first] = [...rawIdFailures(inputs, ctx.caller), ...(await mappingFailures(ctx, inputs))];
  if (first !== undefined)
    throw new PermanentError("INVALID_PARAM", `${first.property}: ${first.reason}`, {
      node: inputs.node,
    });
}
