import { lockTimeout } from "../http/pve-error.js";

interface LockState {
  exclusive: boolean;
  holders: number;
  waiters: { exclusive: boolean; grant: () => void }[];
}

/**
 * The per-VM flock `/var/lock/qemu-server/lock-<vmid>.conf` (separate from the config `lock:`
 * property). Shared holders may overlap; an exclusive holder excludes everyone. A waiter that is
 * not granted within its timeout fails with PVE's "can't lock file … got timeout".
 */
export class FlockTable {
  private readonly locks = new Map<number, LockState>();

  /** Resolves with a release function, or rejects with the timeout error. */
  acquire(vmid: number, exclusive: boolean, timeoutMs: number): Promise<() => void> {
    const state = this.locks.get(vmid) ?? { exclusive: false, holders: 0, waiters: [] };
    this.locks.set(vmid, state);
    const release = (): void => this.release(vmid);
    if (state.holders === 0 || (!exclusive && !state.exclusive && state.waiters.length === 0)) {
      state.holders += 1;
      state.exclusive = exclusive;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        exclusive,
        grant: (): void => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        state.waiters.splice(state.waiters.indexOf(waiter), 1);
        reject(lockTimeout(vmid));
      }, timeoutMs);
      state.waiters.push(waiter);
    });
  }

  /** Whether anyone holds the flock (for tests and the model view). */
  isHeld(vmid: number): boolean {
    return (this.locks.get(vmid)?.holders ?? 0) > 0;
  }

  private release(vmid: number): void {
    const state = this.locks.get(vmid);
    if (state === undefined) return;
    state.holders -= 1;
    if (state.holders > 0) return;
    // Grant the next waiter; consecutive shared waiters are granted together.
    while (state.waiters.length > 0) {
      const next = state.waiters[0];
      if (next === undefined || (state.holders > 0 && (next.exclusive || state.exclusive))) break;
      state.waiters.shift();
      state.holders += 1;
      state.exclusive = next.exclusive;
      next.grant();
      if (next.exclusive) break;
    }
    if (state.holders === 0) this.locks.delete(vmid);
  }
}
