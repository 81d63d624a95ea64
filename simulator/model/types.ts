/** Plain-data records of the simulated cluster. Everything here is JSON-serialisable. */

/** A VM config as PVE stores it: integers/booleans as numbers, everything else as strings. */
export type VmConfig = Record<string, string | number>;

export interface NodeSeed {
  readonly name: string;
  readonly cpus?: number;
  readonly memoryBytes?: number;
  /**
   * The bridges in the node's `/etc/network/interfaces`; default: every bridge of the
   * simulator's `bridges` option. A NIC on a bridge the node lacks fails the VM's start.
   */
  readonly bridges?: readonly string[];
}

export interface StorageSeed {
  readonly storage: string;
  /** PVE plugin type: dir, lvmthin, nfs… */
  readonly type: string;
  readonly content: readonly string[];
  readonly shared: boolean;
  /** Nodes the storage exists on; all nodes when absent. */
  readonly nodes?: readonly string[];
  readonly totalBytes?: number;
}

export interface TemplateSeed {
  readonly vmid: number;
  readonly node: string;
  readonly config: VmConfig;
}

export interface Acl {
  /** ACL path, e.g. `/`, `/vms/100`, `/storage/local`. */
  readonly path: string;
  readonly privileges: readonly string[];
  /** Whether the ACL also applies below `path` (PVE's default is true). */
  readonly propagate?: boolean;
  /** The role name `/access/acl` shows; default `Administrator` for every privilege, else `custom`. */
  readonly role?: string;
}

export interface TokenSeed {
  /** `user@realm!name` */
  readonly tokenId: string;
  readonly secret: string;
  /** Effective ACLs of the token (PVE privsep=1: what the token itself was granted). */
  readonly acls: readonly Acl[];
}

/** A user who logs in with a password (`POST /access/ticket`), e.g. `root@pam`. */
export interface UserSeed {
  /** `user@realm` */
  readonly userid: string;
  readonly password: string;
  /** The user's effective ACLs. */
  readonly acls: readonly Acl[];
  /** The user has a second factor (TOTP, WebAuthn…): a password login only gets a challenge. */
  readonly tfa?: boolean | undefined;
}

/** The simulated guest's view, set when the guest boots. */
export interface GuestState {
  /** Epoch ms at which the agent starts answering; undefined when the VM is not running. */
  agentUpAt?: number;
  hostname?: string;
  interfaces?: GuestInterface[];
  /** Why the NoCloud seed could not be used (unreadable ISO, wrong label, bad YAML…). */
  seedError?: string;
  /** The user cloud-init configured and the SSH keys it authorised, from the seed it read. */
  user?: { name: string; sshKeys: string[] };
}

export interface GuestInterface {
  name: string;
  "hardware-address": string;
  "ip-addresses": { "ip-address": string; "ip-address-type": "ipv4" | "ipv6"; prefix: number }[];
}

export interface VmRecord {
  vmid: number;
  node: string;
  config: VmConfig;
  /** Pending changes for a running VM (PVE's [PENDING] section); `delete` keys as null. */
  pending: Record<string, string | number | null>;
  status: "running" | "stopped";
  qmpstatus: string;
  /** Epoch ms of the last start, for uptime. */
  startedAt?: number;
  /** The host PCI devices the running VM reserved as it started (model/host-devices.ts). */
  pciDevices?: readonly string[];
  /** Epoch ms when the config file appeared (for listing lag). */
  createdAt: number;
  guest: GuestState;
  /**
   * PVE's `[special:cloudinit]` section: the value each cloud-init option had when the drive was
   * last generated, for the options changed since (`null`: the option was added).
   */
  cloudinitChanges?: Record<string, string | number | null>;
  /** The config's `[name]` snapshot sections (see model/snapshots.ts), by snapshot name. */
  snapshots?: Record<string, SnapshotRecord>;
}

/**
 * One `[name]` section of a VM config: the config as it was when the snapshot was taken, plus
 * PVE's snapshot keys (`snaptime`, `description`, `vmstate`, `snapstate` while a task works on it).
 * `parent` sits in `config`, copied from the VM's config like any other key, as PVE copies it.
 */
export interface SnapshotRecord {
  config: VmConfig;
  /** Epoch seconds the snapshot was taken. */
  snaptime: number;
  description?: string;
  /** The RAM state volume, when the snapshot saved a running VM's memory. */
  vmstate?: string;
  /** `prepare` while the snapshot is taken, `delete` while it is removed. */
  snapstate?: "prepare" | "delete";
}

export interface Volume {
  volid: string;
  storage: string;
  /** Node that holds the volume; undefined for shared storage. */
  node?: string;
  content: string;
  format: string;
  size: number;
  ctime: number;
  vmid?: number;
  /** File bytes, kept for ISOs up to a cap so the guest can read its seed. */
  data?: Buffer;
  /** Hex digests of a downloaded file per algorithm, so a second download can compare. */
  checksums?: Record<string, string>;
  /** A snippet's execute bit, which a hookscript needs (check_hookscript). */
  executable?: boolean;
}

export type TaskState = "running" | "stopped";

export interface TaskRecord {
  upid: string;
  node: string;
  pid: number;
  pstart: number;
  starttime: number;
  type: string;
  id: string;
  user: string;
  status: TaskState;
  exitstatus?: string;
  /** Epoch seconds when the task stopped (the task index's end time). */
  endtime?: number;
  log: string[];
}
