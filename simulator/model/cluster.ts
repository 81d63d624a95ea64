import { HaTable } from "./ha.js";
import { ListingHistory } from "./listing.js";
import { ResourcePools } from "./resource-pools.js";
import { cpuCount, maxDisk, memoryBytes } from "./vm-config.js";
import type { NodeSeed, StorageSeed, VmConfig, VmRecord, Volume } from "./types.js";
import { MappingTable } from "./mappings.js";

export interface NodeState {
  readonly name: string;
  readonly cpus: number;
  readonly memoryBytes: number;
  /** The node's bridges (`vmbr0`…), as its `/etc/network/interfaces` declares them. */
  readonly bridges: Set<string>;
  /** Set while the node is unreachable: requests for it get this status and reason. */
  down?: { status: 595 | 596; reason: string };
}

/**
 * The in-memory cluster: nodes, storages, VMs and volumes. It holds state and answers lookups;
 * the rules of each API call live in the route files.
 */
export class Cluster {
  readonly nodes = new Map<string, NodeState>();
  readonly storages: StorageSeed[];
  readonly vms = new Map<number, VmRecord>();
  /** Keyed by `<node or *>|<volid>`: shared storages hold one copy for all nodes. */
  readonly volumes = new Map<string, Volume>();
  readonly listing = new ListingHistory();
  /** HA resources and the CRM's view of them (pve-ha-manager). */
  readonly ha = new HaTable();
  /** Resource pools (`/pools`), which PVE keeps in user.cfg. */
  readonly resourcePools = new ResourcePools();
  /** Resource mappings (`/cluster/mapping/{pci,usb,dir}`), which PVE keeps in /etc/pve/mapping. */
  readonly mappings = new MappingTable();

  constructor(
    nodes: readonly NodeSeed[],
    storages: readonly StorageSeed[],
    /** The bridges of a node whose seed does not list its own. */
    defaultBridges: readonly string[] = ["vmbr0"],
  ) {
    for (const node of nodes) {
      this.nodes.set(node.name, {
        name: node.name,
        cpus: node.cpus ?? 8,
        memoryBytes: node.memoryBytes ?? 32 * 1024 ** 3,
        bridges: new Set(node.bridges ?? defaultBridges),
      });
    }
    this.storages = [...storages];
  }

  /** The VM if its config lives on `node` (PVE looks only at that node's directory). */
  vmOn(node: string, vmid: number): VmRecord | undefined {
    const vm = this.vms.get(vmid);
    return vm !== undefined && vm.node === node ? vm : undefined;
  }

  /** The storage definition if it is available on `node`. */
  storageOn(node: string, storage: string): StorageSeed | undefined {
    return this.storages.find(
      (s) => s.storage === storage && (s.nodes === undefined || s.nodes.includes(node)),
    );
  }

  storagesOn(node: string): StorageSeed[] {
    return this.storages.filter((s) => s.nodes === undefined || s.nodes.includes(node));
  }

  private volumeKey(node: string, volid: string): string {
    const storage = this.storageOn(node, volid.split(":")[0] ?? "");
    return `${storage?.shared === true ? "*" : node}|${volid}`;
  }

  volume(node: string, volid: string): Volume | undefined {
    return this.volumes.get(this.volumeKey(node, volid));
  }

  putVolume(node: string, volume: Volume): void {
    const storage = this.storageOn(node, volume.storage);
    if (storage?.shared !== true) volume.node = node;
    this.volumes.set(this.volumeKey(node, volume.volid), volume);
  }

  deleteVolume(node: string, volid: string): boolean {
    return this.volumes.delete(this.volumeKey(node, volid));
  }

  volumesIn(node: string, storage: string): Volume[] {
    const shared = this.storageOn(node, storage)?.shared === true;
    return [...this.volumes.values()].filter(
      (v) => v.storage === storage && (shared || v.node === node),
    );
  }

  /** Lowest free VMID in [100, 1000000), as /cluster/nextid computes it. */
  nextFreeVmid(): number | undefined {
    for (let vmid = 100; vmid < 1_000_000; vmid += 1) if (!this.vms.has(vmid)) return vmid;
    return undefined;
  }

  addVm(vm: VmRecord): void {
    this.vms.set(vm.vmid, vm);
    this.observe(vm);
  }

  removeVm(vmid: number): void {
    this.vms.delete(vmid);
    this.listing.forget(vmid);
    this.resourcePools.forgetVm(vmid);
  }

  /** Records what pvestatd would publish next about this VM (see ListingHistory). */
  observe(vm: VmRecord, at = Date.now()): void {
    const name = vm.config["name"];
    this.listing.record(vm.vmid, {
      at,
      name: typeof name === "string" ? name : `VM ${vm.vmid}`,
      status: vm.status === "running" ? vm.qmpstatus : "stopped",
      template: vm.config["template"] === 1 ? 1 : 0,
      maxcpu: cpuCount(vm.config),
      maxmem: memoryBytes(vm.config),
      maxdisk: maxDisk(vm.config),
      ...(vm.startedAt === undefined ? {} : { uptimeBase: vm.startedAt }),
    });
  }

  /** A fresh stopped VM record. */
  static newVm(vmid: number, node: string, config: VmConfig): VmRecord {
    return {
      vmid,
      node,
      config,
      pending: {},
      status: "stopped",
      qmpstatus: "stopped",
      createdAt: Date.now(),
      guest: {},
    };
  }
}
