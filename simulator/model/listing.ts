/**
 * The pvestatd view behind `/cluster/resources`: name, status, template and counters come from
 * RRD data published periodically, so they lag the real state. We keep, per VM, the history of
 * observable states and answer with the newest one that is at least `lagMs` old. A VM with no
 * such state yet is listed as PVE lists a brand-new VM: `status: "unknown"`, no name/template.
 */
export interface StatsSnapshot {
  readonly at: number;
  readonly name: string;
  readonly status: string;
  readonly template: number;
  readonly maxcpu: number;
  readonly maxmem: number;
  readonly maxdisk: number;
  readonly uptimeBase?: number;
}

export class ListingHistory {
  private readonly history = new Map<number, StatsSnapshot[]>();

  record(vmid: number, snapshot: StatsSnapshot): void {
    const list = this.history.get(vmid) ?? [];
    const last = list[list.length - 1];
    if (
      last !== undefined &&
      last.name === snapshot.name &&
      last.status === snapshot.status &&
      last.template === snapshot.template &&
      last.maxcpu === snapshot.maxcpu &&
      last.maxmem === snapshot.maxmem
    ) {
      return;
    }
    list.push(snapshot);
    this.history.set(vmid, list);
  }

  forget(vmid: number): void {
    this.history.delete(vmid);
  }

  /** The snapshot visible at `now` with the given lag; prunes entries nobody can see again. */
  visible(vmid: number, now: number, lagMs: number): StatsSnapshot | undefined {
    const list = this.history.get(vmid);
    if (list === undefined) return undefined;
    let index = -1;
    for (let i = list.length - 1; i >= 0; i -= 1) {
      const entry = list[i];
      if (entry !== undefined && entry.at <= now - lagMs) {
        index = i;
        break;
      }
    }
    if (index > 0) list.splice(0, index);
    return index >= 0 ? list[0] : undefined;
  }
}
