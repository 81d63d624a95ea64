/**
 * Storage as a shared resource: each storage has a bandwidth that the copies running on it share
 * (full clones and disk moves), and an allocation lock that every volume allocation on it takes.
 *
 * Bandwidth is opt-in (`storageBandwidthMiBps`): a storage without one copies in the task type's
 * fixed duration, as before, so tests keep their timings. With one, n copies running at once on a
 * storage each progress at bandwidth ÷ n (processor sharing), so 50 full clones to one storage take
 * about 50 times as long as one, whatever the client does.
 *
 * The allocation lock is pve-storage's `cluster_lock_storage` (PVE/Storage/Plugin.pm), which
 * `vdisk_alloc` wraps around the plugin's `alloc_image`: for a storage that is not shared it is the
 * node's file lock `/var/lock/pve-manager/pve-storage-<id>` (PVE::Tools::lock_file, 10 s by
 * default: "can't lock file '…' - got timeout"); for a shared one the cluster lock
 * `storage-<id>` (pve-cluster's cfs_lock, 10 s by default: "cfs-lock 'storage-<id>' error: got
 * lock request timeout"). Only the allocation holds it: qemu-server's clone_disk copies the data
 * after `vdisk_alloc` returns. It costs `storageAllocMs` per allocation (default 0, no contention).
 */
export interface StorageIoOptions {
  /** MiB/s per storage id; a storage not listed copies in its task's fixed duration. */
  readonly bandwidthMiBps: Readonly<Record<string, number>>;
  /** How long one allocation holds the storage's lock. */
  readonly allocMs: number;
  /** PVE's lock timeout (10 s in lock_file and cfs_lock when the caller gives none). */
  readonly lockTimeoutMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** PVE's lock timeout when the caller gives none (lock_file and cfs_lock both use 10 s). */
export const STORAGE_LOCK_TIMEOUT_MS = 10_000;

interface Copy {
  remainingMiB: number;
}

/** The step in which running copies re-share a storage's bandwidth. */
const TICK_MS = 50;

export class StorageIo {
  readonly #copies = new Map<string, Set<Copy>>();
  readonly #locks = new Map<string, Promise<void>>();

  constructor(private readonly options: StorageIoOptions) {}

  /** Whether copies to this storage follow its bandwidth (else the task's fixed duration). */
  hasBandwidth(storage: string): boolean {
    return (this.options.bandwidthMiBps[storage] ?? 0) > 0;
  }

  /** Copies `mib` MiB onto `storage` at its share of the bandwidth; resolves when done. */
  async copy(node: string, storage: string, shared: boolean, mib: number): Promise<void> {
    const bandwidth = this.options.bandwidthMiBps[storage] ?? 0;
    if (bandwidth <= 0 || mib <= 0) return;
    const key = shared ? storage : `${node}/${storage}`;
    const running = this.#copies.get(key) ?? new Set<Copy>();
    this.#copies.set(key, running);
    const copy: Copy = { remainingMiB: mib };
    running.add(copy);
    try {
      while (copy.remainingMiB > 0) {
        const share = bandwidth / running.size;
        const ms = Math.min(TICK_MS, (copy.remainingMiB / share) * 1000);
        await this.options.sleep(ms);
        copy.remainingMiB -= (share * Math.max(ms, 1)) / 1000;
      }
    } finally {
      running.delete(copy);
    }
  }

  /**
   * Runs `allocate` under the storage's allocation lock, queued behind other allocations; a
   * wait past PVE's timeout fails with PVE's text for that kind of lock.
   */
  async allocate<T>(node: string, storage: string, shared: boolean, allocate: () => T): Promise<T> {
    const key = shared ? `cluster/${storage}` : `${node}/${storage}`;
    const ahead = this.#locks.get(key) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.#locks.set(
      key,
      ahead.then(() => mine),
    );
    const timedOut = Symbol("timeout");
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      ahead.then(() => "granted" as const),
      new Promise<typeof timedOut>((resolve) => {
        timer = setTimeout(() => resolve(timedOut), this.options.lockTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === timedOut) {
      // Our turn may still come: pass it on at once, as a waiter that gave up does.
      void ahead.then(release);
      throw new Error(
        shared
          ? `cfs-lock 'storage-${storage}' error: got lock request timeout`
          : `can't lock file '/var/lock/pve-manager/pve-storage-${storage}' - got timeout`,
      );
    }
    try {
      await this.options.sleep(this.options.allocMs);
      return allocate();
    } finally {
      release();
    }
  }
}

/** One disk a task writes: its target storage and size. */
export interface DiskCopy {
  readonly storage: string;
  readonly bytes: number;
}

/**
 * A task that allocates and fills disks (a full clone, a disk move): each allocation under its
 * storage's lock, then the copies one after another, as qemu-server's clone_disk does. Where no
 * target storage has a bandwidth, the copy takes the task's fixed duration (`fixed`), as before.
 */
export async function writeDisks(
  io: StorageIo,
  node: string,
  disks: readonly DiskCopy[],
  isShared: (storage: string) => boolean,
  copies: boolean,
  fixed: () => Promise<void>,
): Promise<void> {
  for (const disk of disks)
    await io.allocate(node, disk.storage, isShared(disk.storage), () => undefined);
  if (!copies || !disks.some((disk) => io.hasBandwidth(disk.storage))) {
    await fixed();
    return;
  }
  for (const disk of disks) {
    await io.copy(node, disk.storage, isShared(disk.storage), disk.bytes / 1024 ** 2);
  }
}

/** Whether a storage is shared between nodes (storage.cfg `shared`), which picks its lock. */
export function isSharedStorage(
  storages: readonly { storage: string; shared?: boolean }[],
  id: string,
): boolean {
  return storages.find((s) => s.storage === id)?.shared === true;
}
