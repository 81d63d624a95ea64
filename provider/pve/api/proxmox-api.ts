/**
 * THE seam between the resource logic and Proxmox VE. Operations see only this interface; the
 * real implementation speaks HTTP through undici ({@link HttpProxmoxApi}), a tracing decorator
 * wraps any implementation, and unit tests use an in-memory fake.
 *
 * Every method either resolves with a zod-checked value or rejects with a
 * {@link PermanentError} / {@link TransientError} carrying a stable `code`. Async PVE calls
 * resolve with the task's UPID; waiting for it is `tasks/task-wait.ts`'s job, not the seam's.
 */

import type { HostResourceCalls } from "./seam/host-resources.js";
import type { SnapshotCalls } from "./seam/snapshots.js";
import type { StorageCalls } from "./seam/storage.js";
import type { TaskCalls, Upid } from "./seam/tasks.js";

// The seam's parts, one module per area; callers import every type from here.
export type * from "./seam/host-resources.js";
export type * from "./seam/snapshots.js";
export type * from "./seam/storage.js";
export type * from "./seam/tasks.js";

/** One row of `GET /cluster/resources?type=vm`. The listing lags real state (pvestatd). */
export interface ClusterVm {
  readonly vmid: number;
  readonly node: string;
  readonly type: "qemu" | "lxc" | (string & {});
  /** Empty while a clone is in progress: PVE writes the name only when the clone ends. */
  readonly name?: string | undefined;
  /** `running`, `stopped`, or `unknown` (node not answering, or VM too new to be reported). */
  readonly status: string;
  readonly template?: boolean | undefined;
  readonly lock?: string | undefined;
  /** The resource pool the VM belongs to; PVE reads it from user.cfg on every listing. */
  readonly pool?: string | undefined;
}

export interface ClusterNode {
  readonly node: string;
  /** `online`, `offline` or `unknown`. */
  readonly status: string;
}

/** A VM's config as PVE returns it: known keys are typed, everything else passes through. */
export interface VmConfig {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly tags?: string | undefined;
  readonly lock?: string | undefined;
  readonly digest?: string | undefined;
  readonly cores?: number | undefined;
  readonly sockets?: number | undefined;
  readonly memory?: number | undefined;
  readonly agent?: string | undefined;
  readonly ide2?: string | undefined;
  readonly net0?: string | undefined;
  readonly template?: boolean | undefined;
  readonly [key: string]: string | number | boolean | undefined;
}

/** A VM's config and its pending changes, from one `GET …/pending`. */
export interface VmPendingConfig {
  /** The config as `GET …/config` returns it: the pending values applied. */
  readonly config: VmConfig;
  /** The values the VM runs with now. */
  readonly current: VmConfig;
  /** The keys PVE holds under `/pending` (changed or deleted at the next reboot), sorted. */
  readonly pending: readonly string[];
}

export interface VmStatus {
  /** `running` or `stopped`. */
  readonly status: string;
  /** QMP's view: `running`, `paused`, `prelaunch`, `shutdown`… absent when stopped. */
  readonly qmpstatus?: string | undefined;
  readonly lock?: string | undefined;
  readonly agent?: boolean | undefined;
  readonly name?: string | undefined;
  readonly uptime?: number | undefined;
}

/** One row of `GET /nodes/{node}/qemu?full=1`: a VM's live status, as `status/current` has it. */
export interface NodeVm extends Omit<VmStatus, "agent"> {
  readonly vmid: number;
}

export interface GuestInterface {
  readonly name: string;
  readonly hardwareAddress?: string | undefined;
  readonly ipAddresses: readonly { readonly address: string; readonly type: "ipv4" | "ipv6" }[];
}

export interface CloneRequest {
  readonly node: string;
  /** The template's VMID. */
  readonly vmid: number;
  readonly newid: number;
  readonly name: string;
  readonly description?: string | undefined;
  /** Target node, when it differs from the template's. */
  readonly target?: string | undefined;
  /** Disk storage for a full clone. */
  readonly storage?: string | undefined;
  readonly full: boolean;
  /** The resource pool the new VM joins when the clone ends. */
  readonly pool?: string | undefined;
}

/** A change of one VM's membership of a resource pool. */
export interface PoolMembership {
  readonly poolid: string;
  readonly vmid: number;
  /** Take the VM out of the pool instead of adding it. */
  readonly remove: boolean;
}

/** What a migration does with disks on node-local storage. */
export interface MigrateDisks {
  /** Copy them to the target (PVE's `with-local-disks`). */
  readonly withLocalDisks: boolean;
  /** The target's storage for them (PVE's `targetstorage`; default: the same storage id). */
  readonly targetStorage?: string | undefined;
}

/** Values PVE accepts in a form body: booleans are sent as 1/0. */
export type PveParams = Readonly<Record<string, string | number | boolean>>;

export interface MoveTarget {
  readonly storage: string;
  readonly format?: "raw" | "qcow2" | "vmdk" | undefined;
}

export interface ConfigUpdate {
  readonly set?: PveParams | undefined;
  /** Keys to remove (PVE's `delete` parameter). */
  readonly delete?: readonly string[] | undefined;
  /** Fails with a conflict when the config changed since this digest was read. */
  readonly digest?: string | undefined;
}

/** `POST /nodes/{node}/qemu`: a new VM from a config, e.g. a disk with `import-from`. */
export interface CreateVmRequest {
  readonly node: string;
  readonly vmid: number;
  /** The VM's config keys as PVE takes them (`scsi0: "local-lvm:0,import-from=…"`). */
  readonly config: PveParams;
}

export interface ProxmoxVersion {
  readonly version: string;
  readonly release: string;
  readonly repoid: string;
}

/** Effective privileges of the caller, per ACL path: `{"/vms/100": {"VM.Audit": 1}}`. */
export type Permissions = Readonly<Record<string, Readonly<Record<string, number>>>>;

/** The cluster and VM calls are here; the calls of the other areas come from their parts. */
export interface ProxmoxApi extends HostResourceCalls, SnapshotCalls, StorageCalls, TaskCalls {
  version(): Promise<ProxmoxVersion>;
  permissions(): Promise<Permissions>;

  /** May be served from a short-lived shared listing (coalesced-api.ts). */
  clusterVms(): Promise<readonly ClusterVm[]>;
  /**
   * Makes the next `clusterVms()` send a fresh request (after this process's own writes, e.g. a
   * clone). Present on the coalescing decorator; a no-op elsewhere, hence optional.
   */
  invalidateClusterVms?(): void;
  nextVmid(): Promise<number>;
  nodes(): Promise<readonly ClusterNode[]>;

  vmConfig(node: string, vmid: number): Promise<VmConfig>;
  /** GET …/pending: the config and what waits for the next reboot, in one request. */
  vmPending(node: string, vmid: number): Promise<VmPendingConfig>;
  /** POST …/config: async, resolves with the UPID (or null when PVE applied it at once). */
  updateVmConfig(node: string, vmid: number, update: ConfigUpdate): Promise<Upid | null>;
  /**
   * PUT …/config: applied before the answer, with no worker task to wait for. PVE advises POST
   * for changes that allocate storage or hotplug; for the rest this saves the task's fork, its
   * run and the polls that watch it.
   */
  updateVmConfigSync(node: string, vmid: number, update: ConfigUpdate): Promise<void>;
  cloneVm(request: CloneRequest): Promise<Upid>;
  /** POST …/qemu: the config exists at once with `lock: create`; the task fills it in. */
  createVm(request: CreateVmRequest): Promise<Upid>;
  /** POST …/template: a `qmtemplate` task, or null from releases that converted synchronously. */
  convertToTemplate(node: string, vmid: number): Promise<Upid | null>;
  vmStatus(node: string, vmid: number): Promise<VmStatus>;
  /**
   * GET /nodes/{node}/qemu?full=1: every VM on the node with its live status (QMP's included),
   * in one request. May be served from a short-lived shared listing (coalesced-api.ts).
   */
  nodeVms(node: string): Promise<readonly NodeVm[]>;
  /**
   * Makes the next `nodeVms()` of every node send a fresh request (a read that found a VM moved
   * or gone since the listing). The coalescing decorator also drops the listings on every request
   * that is not a read. Present on that decorator; a no-op elsewhere, hence optional.
   */
  invalidateNodeVms?(): void;
  startVm(node: string, vmid: number): Promise<Upid>;
  stopVm(node: string, vmid: number): Promise<Upid>;
  shutdownVm(node: string, vmid: number, timeoutSeconds?: number): Promise<Upid>;
  rebootVm(node: string, vmid: number): Promise<Upid>;
  /** POST …/migrate: moves the VM to `target` (live when `online` and running). */
  migrateVm(
    node: string,
    vmid: number,
    target: string,
    online: boolean,
    disks?: MigrateDisks,
  ): Promise<Upid>;
  /**
   * PUT /pools/{poolid} with `vms` (and `delete` to remove): synchronous. A VM in another pool
   * must leave it first (PVE refuses an add, and 7.4 has no `allow-move`).
   */
  updatePoolMembership(change: PoolMembership): Promise<void>;
  /** DELETE …/qemu/{vmid} with purge and destroy-unreferenced-disks. */
  destroyVm(node: string, vmid: number): Promise<Upid>;
  /** PUT …/resize: `size` is PVE's syntax, e.g. `20G` (absolute). Null on PVE 7 (sync). */
  resizeDisk(node: string, vmid: number, disk: string, size: string): Promise<Upid | null>;
  /**
   * POST …/move_disk: copies `disk` to `target.storage` (converting to `target.format` when set),
   * online when the VM runs, and deletes the source volume once the copy is in place.
   */
  moveDisk(node: string, vmid: number, disk: string, target: MoveTarget): Promise<Upid>;
  agentInterfaces(node: string, vmid: number): Promise<readonly GuestInterface[]>;
}
