/** The seam's snapshot calls: list, take, describe, roll back to and delete a VM's snapshots. */
import type { Upid } from "./tasks.js";

/** One snapshot of a VM, as `GET …/snapshot` lists it (PVE's `current` row is not one). */
export interface VmSnapshot {
  readonly name: string;
  /** Empty when none was given. */
  readonly description: string;
  /** UNIX seconds when it was taken. */
  readonly snaptime?: number | undefined;
  /** Whether it holds the RAM: a rollback to it resumes the VM. */
  readonly vmstate: boolean;
  readonly parent?: string | undefined;
  /** `prepare` while a task takes it, `delete` while one removes it. */
  readonly snapstate?: string | undefined;
}

/** A VM's snapshots and where its current state descends from. */
export interface VmSnapshots {
  readonly snapshots: readonly VmSnapshot[];
  /** The snapshot the current state was taken after or rolled back to (the `current` row's parent). */
  readonly parent?: string | undefined;
}

export interface SnapshotRequest {
  /** PVE's snapshot name: a letter, then letters, digits, `_` or `-`; 2 to 40 characters. */
  readonly name: string;
  readonly description?: string | undefined;
  /** Save a running VM's RAM too (PVE's `vmstate`). */
  readonly vmstate?: boolean | undefined;
}

export interface SnapshotCalls {
  /** GET …/snapshot: the VM's snapshots, oldest first. */
  vmSnapshots(node: string, vmid: number): Promise<VmSnapshots>;
  /** POST …/snapshot: a `qmsnapshot` task; a used name or a disk without snapshots fails it. */
  createSnapshot(node: string, vmid: number, request: SnapshotRequest): Promise<Upid>;
  /** PUT …/snapshot/{name}/config: the description, changed at once. */
  updateSnapshot(node: string, vmid: number, name: string, description: string): Promise<void>;
  /**
   * POST …/snapshot/{name}/rollback: a `qmrollback` task. PVE stops a running VM first and
   * starts it after only with `start` (or when the snapshot holds the RAM).
   */
  rollbackSnapshot(node: string, vmid: number, name: string, start: boolean): Promise<Upid>;
  /** DELETE …/snapshot/{name}: a `qmdelsnapshot` task; a missing snapshot fails the task. */
  deleteSnapshot(node: string, vmid: number, name: string): Promise<Upid>;
}
