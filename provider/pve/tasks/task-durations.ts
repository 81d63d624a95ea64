/**
 * How long each task type has recently taken in this provider process, so a task wait need not
 * poll while a task of that type has never been seen to end. PVE has no long-poll for task
 * status: each poll is a request that holds one of the node's three API workers. A deployment
 * of N VMs runs N clones, N starts, N config writes; after the first of each, their waits skip
 * the polls that could only answer "running" — a 3 s clone costs a handful of polls, not ~25.
 */

/** Runs remembered per task type: recent enough to follow a host that got slower. */
const KEPT = 16;
/** Share of the shortest recent run waited before the first poll: jitter below it stays cheap. */
const QUIET_SHARE = 0.9;

export class TaskDurations {
  readonly #runs = new Map<string, number[]>();

  /** A task of `type` ended about `ms` after its wait began (see TaskResult.endedAfterMs). */
  record(type: string, ms: number): void {
    const runs = this.#runs.get(type) ?? [];
    runs.push(ms);
    if (runs.length > KEPT) runs.shift();
    this.#runs.set(type, runs);
  }

  /** How long a wait for a task of `type` may skip polling; 0 before any has ended. */
  quietMs(type: string): number {
    const runs = this.#runs.get(type);
    return runs === undefined ? 0 : Math.floor(Math.min(...runs) * QUIET_SHARE);
  }
}
