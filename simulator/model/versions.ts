/**
 * The PVE releases the simulator can answer as, and every behaviour that differs between them.
 * Routes read these rows instead of comparing version numbers, so each difference is stated once
 * (docs/simulator.md, "Version profiles", names the PVE source of each row).
 */

/** The releases the simulator can answer as. */
export const PVE_VERSIONS = ["7.4", "8.4", "9.1"] as const;
/** One of {@link PVE_VERSIONS}. */
export type PveVersion = (typeof PVE_VERSIONS)[number];
export const DEFAULT_PVE_VERSION: PveVersion = "8.4";
/** Picks the profile when `pveVersion` is not passed, so a whole test suite can switch at once. */
const PVE_VERSION_ENV = "PVE_SIM_VERSION";

/** How one PVE release answers where releases differ. */
export interface VersionProfile {
  readonly pveVersion: PveVersion;
  /** What `GET /version` and `GET /nodes/{node}/version` answer. */
  readonly version: { readonly version: string; readonly release: string; readonly repoid: string };
  /** Error bodies carry the die text as `message` (pve-http-server 5.2.0 and later). */
  readonly errorMessageInBody: boolean;
  /** Status of an error raised outside an API handler, e.g. an unreadable JSON body. */
  readonly outsideHandlerErrorStatus: 500 | 501;
  /** Every privilege this release knows; a role naming another one is refused. */
  readonly privileges: readonly string[];
  /** The guest-agent reads need any one of these on `/vms/<vmid>`. */
  readonly agentPrivileges: readonly string[];
  /** `PUT …/resize` forks a `resize` task (UPID); before 8.0 it resizes at once and answers null. */
  readonly resizeIsTask: boolean;
  /** A qcow2 disk cannot grow while the VM has snapshots (fixed in qemu-server 8.0.2, #517). */
  readonly resizeRefusesQcow2Snapshots: boolean;
  /** A NIC's bridge needs `SDN.Use` on `/sdn/zones/localnetwork/<bridge>[/<tag>]` (8.0 and later). */
  readonly bridgeNeedsSdnUse: boolean;
  /** `status/current` carries `clipboard` (8.x and later). */
  readonly clipboardInStatus: boolean;
  /** VM status rows carry `memhost` and the `pressure*` fields (9.x). */
  readonly hostPressureInStatus: boolean;
  /** How HA placement is configured: `/cluster/ha/groups` (7 and 8) or `/cluster/ha/rules` (9). */
  readonly haPlacement: "groups" | "rules";
  /** The QEMU the release ships (`kvm --version`): a VM pinned to a newer machine version fails to start. */
  readonly qemuVersion: string;
  /** `PUT /pools/{poolid}` takes `allow-move` (8.x and later); 7.4 refuses it as unknown. */
  readonly poolAllowMove: boolean;
  /** The values `GET /nodes/{node}/network` takes as `type` (pve-manager API2/Network.pm `index`). */
  readonly networkTypeFilters: readonly string[];
  /** The script QEMU runs to plug a NIC's tap into its bridge (qemu-server's `pve-bridge`). */
  readonly bridgeScript: string;
  /**
   * The resource mappings `/cluster/mapping/<type>` serves (pve-manager 8.0 added pci and usb,
   * 8.4 dir); a VM config may name a mapping (`hostpci0: mapping=gpu0`) of these types only.
   */
  readonly mappingTypes: readonly ("pci" | "usb" | "dir")[];
}

const PVE8_PRIVILEGES = [
  "Datastore.Allocate",
  "Datastore.AllocateSpace",
  "Datastore.AllocateTemplate",
  "Datastore.Audit",
  "Group.Allocate",
  "Mapping.Audit",
  "Mapping.Modify",
  "Mapping.Use",
  "Permissions.Modify",
  "Pool.Allocate",
  "Pool.Audit",
  "Realm.Allocate",
  "Realm.AllocateUser",
  "SDN.Allocate",
  "SDN.Audit",
  "SDN.Use",
  "Sys.AccessNetwork",
  "Sys.Audit",
  "Sys.Console",
  "Sys.Incoming",
  "Sys.Modify",
  "Sys.PowerMgmt",
  "Sys.Syslog",
  "User.Modify",
  "VM.Allocate",
  "VM.Audit",
  "VM.Backup",
  "VM.Clone",
  "VM.Config.CDROM",
  "VM.Config.CPU",
  "VM.Config.Cloudinit",
  "VM.Config.Disk",
  "VM.Config.HWType",
  "VM.Config.Memory",
  "VM.Config.Network",
  "VM.Config.Options",
  "VM.Console",
  "VM.Migrate",
  "VM.Monitor",
  "VM.PowerMgmt",
  "VM.Snapshot",
  "VM.Snapshot.Rollback",
];

/** 8.0 added SDN.Use and the Mapping.* privileges, 8.1 Sys.AccessNetwork. */
const ADDED_IN_8 = new Set([
  "SDN.Use",
  "Mapping.Audit",
  "Mapping.Modify",
  "Mapping.Use",
  "Sys.AccessNetwork",
]);

const GUEST_AGENT_PRIVILEGES = [
  "VM.GuestAgent.Audit",
  "VM.GuestAgent.FileRead",
  "VM.GuestAgent.FileSystemMgmt",
  "VM.GuestAgent.FileWrite",
  "VM.GuestAgent.Unrestricted",
];

/** Interface types every release lists (API2/Network.pm `$network_type_enum`). */
const NETWORK_TYPES = ["bridge", "bond", "eth", "alias", "vlan"];
const OVS_TYPES = ["OVSBridge", "OVSBond", "OVSPort", "OVSIntPort"];
/** 8.x lists SDN vnets and can filter by local bridges or add the SDN ones. */
const NETWORK_FILTERS_8 = [
  ...NETWORK_TYPES,
  ...OVS_TYPES,
  "vnet",
  "any_bridge",
  "any_local_bridge",
  "include_sdn",
];

const sorted = (privileges: readonly string[]): readonly string[] => [...privileges].sort();

/** What each release answers differently, one row per release. */
export const VERSION_PROFILES: Readonly<Record<PveVersion, VersionProfile>> = {
  "7.4": {
    pveVersion: "7.4",
    version: { version: "7.4-16", release: "7.4", repoid: "0f39f621" },
    errorMessageInBody: false,
    outsideHandlerErrorStatus: 501,
    privileges: PVE8_PRIVILEGES.filter((privilege) => !ADDED_IN_8.has(privilege)),
    agentPrivileges: ["VM.Monitor"],
    resizeIsTask: false,
    resizeRefusesQcow2Snapshots: true,
    bridgeNeedsSdnUse: false,
    clipboardInStatus: false,
    hostPressureInStatus: false,
    haPlacement: "groups",
    qemuVersion: "7.2.0",
    poolAllowMove: false,
    networkTypeFilters: [...NETWORK_TYPES, ...OVS_TYPES, "any_bridge"],
    bridgeScript: "/var/lib/qemu-server/pve-bridge",
    mappingTypes: [],
  },
  "8.4": {
    pveVersion: "8.4",
    version: { version: "8.4.1", release: "8.4", repoid: "2a5fa54a8503f96d" },
    errorMessageInBody: true,
    outsideHandlerErrorStatus: 500,
    privileges: PVE8_PRIVILEGES,
    agentPrivileges: ["VM.Monitor"],
    resizeIsTask: true,
    resizeRefusesQcow2Snapshots: false,
    bridgeNeedsSdnUse: true,
    clipboardInStatus: true,
    hostPressureInStatus: false,
    haPlacement: "groups",
    qemuVersion: "9.2.0",
    poolAllowMove: true,
    networkTypeFilters: NETWORK_FILTERS_8,
    bridgeScript: "/usr/libexec/qemu-server/pve-bridge",
    mappingTypes: ["pci", "usb", "dir"],
  },
  "9.1": {
    pveVersion: "9.1",
    version: { version: "9.1.1", release: "9.1", repoid: "42db4a6cf33dac83" },
    errorMessageInBody: true,
    outsideHandlerErrorStatus: 500,
    privileges: sorted([
      ...PVE8_PRIVILEGES.filter((privilege) => privilege !== "VM.Monitor"),
      ...GUEST_AGENT_PRIVILEGES,
    ]),
    agentPrivileges: ["VM.GuestAgent.Audit", "VM.GuestAgent.Unrestricted"],
    resizeIsTask: true,
    resizeRefusesQcow2Snapshots: false,
    bridgeNeedsSdnUse: true,
    clipboardInStatus: true,
    hostPressureInStatus: true,
    haPlacement: "rules",
    qemuVersion: "10.1.2",
    poolAllowMove: true,
    // 9.0 added SDN fabrics, listed as their own type.
    networkTypeFilters: [...NETWORK_FILTERS_8, "fabric"],
    bridgeScript: "/usr/libexec/qemu-server/pve-bridge",
    mappingTypes: ["pci", "usb", "dir"],
  },
};

/** The profile for `pveVersion`, else `$PVE_SIM_VERSION`, else 8.4; anything else is refused. */
export function versionProfile(
  pveVersion: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): VersionProfile {
  const fromEnv = env[PVE_VERSION_ENV];
  const wanted =
    pveVersion ?? (fromEnv === undefined || fromEnv === "" ? DEFAULT_PVE_VERSION : fromEnv);
  if (!(PVE_VERSIONS as readonly string[]).includes(wanted)) {
    const origin = pveVersion === undefined ? `${PVE_VERSION_ENV}=${wanted}` : `'${wanted}'`;
    throw new Error(
      `unknown PVE version ${origin}: the simulator answers as ${PVE_VERSIONS.join(", ")}`,
    );
  }
  return VERSION_PROFILES[wanted as PveVersion];
}
