/**
 * The fake's state and the helpers its calls share: call records, scripted failures, tasks that
 * end at once with a scripted exit status, and the lookups that fail as PVE's do.
 */
import type {
  ClusterNode,
  ClusterVm,
  NodeStorage,
  ProxmoxApi,
  ResourceMapping,
  Upid,
  VmSnapshot,
} from "../../../provider/pve/api/proxmox-api";
import { PermanentError } from "../../../provider/pve/errors";

export interface FakeVm {
  node: string;
  config: Record<string, string | number | boolean | undefined>;
  status: "running" | "stopped";
  template?: boolean;
  /** Values PVE holds for the next reboot (null: deleted then); a reboot applies them. */
  pending?: Record<string, string | number | null>;
  /** Oldest first; the last one is the current state's parent. */
  snapshots?: VmSnapshot[] | undefined;
}

export type Method = keyof ProxmoxApi;

export abstract class FakeApiState {
  readonly vms = new Map<number, FakeVm>();
  /** Volumes by `<node>/<storage>`; a shared storage uses `*` as its node. */
  readonly volumes = new Map<string, Set<string>>();
  readonly calls: { method: Method; args: unknown[] }[] = [];
  readonly nodeList: ClusterNode[] = [
    { node: "pve1", status: "online" },
    { node: "pve2", status: "online" },
  ];
  /** The bridges every node has. */
  readonly bridges: string[] = ["vmbr0", "vmbr1"];
  /** Resource mappings by `<type>/<id>`. */
  readonly mappings = new Map<string, ResourceMapping>();
  readonly storages: NodeStorage[] = [
    {
      storage: "local",
      type: "dir",
      content: ["iso", "vztmpl"],
      shared: false,
      active: true,
      enabled: true,
    },
    {
      storage: "shared",
      type: "nfs",
      content: ["images", "iso"],
      shared: true,
      active: true,
      enabled: true,
    },
  ];
  /** Resource pools: pool id → member VMIDs. */
  readonly pools = new Map<string, Set<number>>();
  /** Listing rows to hide or override, to model the listing's lag. */
  listingOverride: ((rows: ClusterVm[]) => ClusterVm[]) | undefined;
  /** Exit status of the next tasks, in order; `OK` once empty. */
  readonly taskOutcomes: string[] = [];
  readonly #failures = new Map<Method, Error[]>();
  /** Every task started, with the exit status it ended with. */
  protected readonly taskRecords = new Map<Upid, { node: string; exitstatus: string }>();
  protected macCounter = 0;
  #upidCounter = 0;

  addVm(vmid: number, vm: FakeVm): void {
    this.vms.set(vmid, vm);
  }

  /** The next `count` calls of `method` reject with `error`. */
  failNext(method: Method, error: Error, count = 1): void {
    const queue = this.#failures.get(method) ?? [];
    for (let i = 0; i < count; i++) queue.push(error);
    this.#failures.set(method, queue);
  }

  callsOf(method: Method): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  isosOn(storage: string, node = "*"): string[] {
    return [...(this.volumes.get(`${node}/${storage}`) ?? [])].sort();
  }

  protected enter(method: Method, args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.#failures.get(method)?.shift();
    if (failure) throw failure;
  }

  protected vm(node: string, vmid: number): FakeVm {
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node) {
      throw new PermanentError(
        "NOT_FOUND",
        `Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`,
        { node, vmid, status: 500 },
      );
    }
    return vm;
  }

  protected task(node: string, type: string, id: string | number): Upid {
    const upid = `UPID:${node}:0000${(++this.#upidCounter).toString(16).padStart(4, "0").toUpperCase()}:00000000:00000000:${type}:${id}:root@pam!ci:`;
    this.taskRecords.set(upid, { node, exitstatus: this.taskOutcomes.shift() ?? "OK" });
    return upid;
  }

  protected volumeSet(node: string, storage: string): Set<string> {
    const shared = this.storages.find((s) => s.storage === storage)?.shared;
    const key = `${shared ? "*" : node}/${storage}`;
    let set = this.volumes.get(key);
    if (!set) this.volumes.set(key, (set = new Set()));
    return set;
  }

  protected poolOf(vmid: number): string | undefined {
    return [...this.pools].find(([, members]) => members.has(vmid))?.[0];
  }
}
