/**
 * An in-memory ProxmoxApi for fast operation tests. It keeps just enough of PVE's behaviour for
 * the operations' branches (VMs with config and status, clone locks, ISO volumes per storage,
 * tasks that end at once or as scripted) and records every call. Failures are scripted per
 * method. Fidelity to PVE itself is the simulator's job, tested through the real HTTP client.
 */
import type {
  CloneRequest,
  ClusterNode,
  ClusterVm,
  ConfigUpdate,
  CreateVmRequest,
  GuestInterface,
  MoveTarget,
  NodeVm,
  Permissions,
  PoolMembership,
  ProxmoxApi,
  ProxmoxVersion,
  Upid,
  VmConfig,
  VmPendingConfig,
  VmStatus,
} from "../../provider/pve/api/proxmox-api";
import { PermanentError } from "../../provider/pve/errors";
import { FakePartCalls } from "./fake-api/part-calls";
import type { FakeVm } from "./fake-api/state";

export type { FakeVm } from "./fake-api/state";

/** The cluster and VM calls; the other areas' calls and the shared state are in `fake-api/`. */
export class FakeProxmoxApi extends FakePartCalls implements ProxmoxApi {
  constructor() {
    super();
    this.addVm(9000, {
      node: "pve1",
      template: true,
      status: "stopped",
      config: {
        name: "debian-12-cloud",
        template: true,
        scsi0: "shared:base-9000-disk-0,size=2G",
        net0: "virtio=BC:24:11:00:00:00,bridge=vmbr0",
        boot: "order=scsi0",
        agent: "1",
        cores: 1,
        memory: 512,
      },
    });
  }

  async version(): Promise<ProxmoxVersion> {
    this.enter("version", []);
    return { version: "8.4.5", release: "8.4", repoid: "fake" };
  }
  async permissions(): Promise<Permissions> {
    this.enter("permissions", []);
    return { "/": { "VM.Allocate": 1 } };
  }
  async clusterVms(): Promise<readonly ClusterVm[]> {
    this.enter("clusterVms", []);
    const rows: ClusterVm[] = [...this.vms].map(([vmid, vm]) => ({
      vmid,
      node: vm.node,
      type: "qemu",
      name: vm.config["lock"] === "clone" ? undefined : (vm.config["name"] as string | undefined),
      status: vm.status,
      template: vm.template ?? false,
      lock: vm.config["lock"] as string | undefined,
      pool: this.poolOf(vmid),
    }));
    return this.listingOverride ? this.listingOverride(rows) : rows;
  }
  async nextVmid(): Promise<number> {
    this.enter("nextVmid", []);
    let id = 100;
    while (this.vms.has(id)) id++;
    return id;
  }
  async nodes(): Promise<readonly ClusterNode[]> {
    this.enter("nodes", []);
    return this.nodeList;
  }
  async vmConfig(node: string, vmid: number): Promise<VmConfig> {
    this.enter("vmConfig", [node, vmid]);
    return { ...this.vm(node, vmid).config, digest: "d" };
  }
  async vmPending(node: string, vmid: number): Promise<VmPendingConfig> {
    this.enter("vmPending", [node, vmid]);
    const vm = this.vm(node, vmid);
    const current = Object.fromEntries(
      Object.entries(vm.config).filter(([, value]) => value !== undefined),
    ) as VmConfig;
    const pending = vm.pending ?? {};
    const config: Record<string, string | number | boolean | undefined> = { ...current };
    for (const [key, value] of Object.entries(pending)) config[key] = value ?? undefined;
    return { config, current, pending: Object.keys(pending).sort() };
  }
  async updateVmConfig(node: string, vmid: number, update: ConfigUpdate): Promise<Upid | null> {
    this.enter("updateVmConfig", [node, vmid, update]);
    const vm = this.vm(node, vmid);
    for (const [key, value] of Object.entries(update.set ?? {})) vm.config[key] = value;
    for (const key of update.delete ?? []) vm.config[key] = undefined;
    return this.task(node, "qmconfig", vmid);
  }
  async updateVmConfigSync(node: string, vmid: number, update: ConfigUpdate): Promise<void> {
    this.enter("updateVmConfigSync", [node, vmid, update]);
    const vm = this.vm(node, vmid);
    for (const [key, value] of Object.entries(update.set ?? {})) vm.config[key] = value;
    for (const key of update.delete ?? []) vm.config[key] = undefined;
  }
  async cloneVm(request: CloneRequest): Promise<Upid> {
    this.enter("cloneVm", [request]);
    const source = this.vm(request.node, request.vmid);
    if (this.vms.has(request.newid)) {
      throw new PermanentError(
        "ALREADY_EXISTS",
        `unable to create VM ${request.newid}: config file already exists`,
        { node: request.node, vmid: request.newid },
      );
    }
    const mac = `BC:24:11:00:00:${(++this.macCounter).toString(16).padStart(2, "0").toUpperCase()}`;
    const { template: _template, name: _name, ...rest } = source.config;
    this.addVm(request.newid, {
      node: request.target ?? request.node,
      status: "stopped",
      config: {
        ...rest,
        name: request.name,
        description: request.description,
        net0: `virtio=${mac},bridge=vmbr0`,
        scsi0: `shared:vm-${request.newid}-disk-0,size=2G`,
      },
    });
    if (request.pool !== undefined) this.pools.get(request.pool)?.add(request.newid);
    return this.task(request.node, "qmclone", request.vmid);
  }
  async createVm(request: CreateVmRequest): Promise<Upid> {
    this.enter("createVm", [request]);
    if (this.vms.has(request.vmid)) {
      throw new PermanentError(
        "ALREADY_EXISTS",
        `unable to create VM ${request.vmid} - VM ${request.vmid} already exists on node '${request.node}'`,
        { node: request.node, vmid: request.vmid },
      );
    }
    // The disk named by import-from becomes the VM's own volume, as qemu-img's copy does.
    const config: FakeVm["config"] = {};
    for (const [key, value] of Object.entries(request.config)) {
      config[key] =
        typeof value === "string" && value.includes("import-from=")
          ? `${value.split(":")[0]}:vm-${request.vmid}-disk-0,size=2G`
          : value;
    }
    this.addVm(request.vmid, { node: request.node, status: "stopped", config });
    return this.task(request.node, "qmcreate", request.vmid);
  }
  async convertToTemplate(node: string, vmid: number): Promise<Upid | null> {
    this.enter("convertToTemplate", [node, vmid]);
    const vm = this.vm(node, vmid);
    vm.template = true;
    vm.config["template"] = true;
    for (const [key, value] of Object.entries(vm.config)) {
      if (typeof value === "string" && value.includes(`:vm-${vmid}-disk-`))
        vm.config[key] = value.replace(`:vm-${vmid}-disk-`, `:base-${vmid}-disk-`);
    }
    return this.task(node, "qmtemplate", vmid);
  }
  async vmStatus(node: string, vmid: number): Promise<VmStatus> {
    this.enter("vmStatus", [node, vmid]);
    const vm = this.vm(node, vmid);
    return { status: vm.status, qmpstatus: vm.status, agent: Boolean(vm.config["agent"]) };
  }
  async nodeVms(node: string): Promise<readonly NodeVm[]> {
    this.enter("nodeVms", [node]);
    return [...this.vms]
      .filter(([, vm]) => vm.node === node)
      .map(([vmid, vm]) => ({ vmid, status: vm.status, qmpstatus: vm.status }));
  }
  async startVm(node: string, vmid: number): Promise<Upid> {
    this.enter("startVm", [node, vmid]);
    this.vm(node, vmid).status = "running";
    return this.task(node, "qmstart", vmid);
  }
  async stopVm(node: string, vmid: number): Promise<Upid> {
    this.enter("stopVm", [node, vmid]);
    this.vm(node, vmid).status = "stopped";
    return this.task(node, "qmstop", vmid);
  }
  async shutdownVm(node: string, vmid: number): Promise<Upid> {
    this.enter("shutdownVm", [node, vmid]);
    this.vm(node, vmid).status = "stopped";
    return this.task(node, "qmshutdown", vmid);
  }
  async rebootVm(node: string, vmid: number): Promise<Upid> {
    this.enter("rebootVm", [node, vmid]);
    const vm = this.vm(node, vmid);
    // A reboot starts the VM on its pending config, as PVE's does.
    for (const [key, value] of Object.entries(vm.pending ?? {}))
      vm.config[key] = value ?? undefined;
    vm.pending = {};
    return this.task(node, "qmreboot", vmid);
  }
  async migrateVm(node: string, vmid: number, target: string, online: boolean): Promise<Upid> {
    this.enter("migrateVm", [node, vmid, target, online]);
    this.vm(node, vmid).node = target;
    return this.task(node, "qmigrate", vmid);
  }
  async updatePoolMembership(change: PoolMembership): Promise<void> {
    this.enter("updatePoolMembership", [change]);
    const members = this.pools.get(change.poolid);
    if (members === undefined) throw new Error(`pool '${change.poolid}' does not exist`);
    if (change.remove) members.delete(change.vmid);
    else members.add(change.vmid);
  }
  async destroyVm(node: string, vmid: number): Promise<Upid> {
    this.enter("destroyVm", [node, vmid]);
    this.vm(node, vmid);
    const upid = this.task(node, "qmdestroy", vmid);
    // A failed destroy task leaves the VM, as PVE does.
    if (this.taskRecords.get(upid)?.exitstatus === "OK") {
      this.vms.delete(vmid);
      for (const members of this.pools.values()) members.delete(vmid);
    }
    return upid;
  }
  async moveDisk(node: string, vmid: number, disk: string, target: MoveTarget): Promise<Upid> {
    this.enter("moveDisk", [node, vmid, disk, target]);
    const vm = this.vm(node, vmid);
    vm.config[disk] = String(vm.config[disk]).replace(/^[^:]+:/, `${target.storage}:`);
    return this.task(node, "qmmove", vmid);
  }
  async resizeDisk(node: string, vmid: number, disk: string, size: string): Promise<Upid | null> {
    this.enter("resizeDisk", [node, vmid, disk, size]);
    const vm = this.vm(node, vmid);
    vm.config[disk] = String(vm.config[disk]).replace(/size=[^,]+/, `size=${size}`);
    return this.task(node, "resize", vmid);
  }
  async agentInterfaces(node: string, vmid: number): Promise<readonly GuestInterface[]> {
    this.enter("agentInterfaces", [node, vmid]);
    const vm = this.vm(node, vmid);
    if (vm.status !== "running") {
      throw new PermanentError("UNAVAILABLE", `VM ${vmid} is not running`, {
        node,
        vmid,
        status: 500,
      });
    }
    // As qemu-guest-agent does: lower-case hardware addresses, eth0's is net0's MAC.
    const mac = /=([0-9A-Fa-f:]{17})/.exec(String(vm.config["net0"] ?? ""))?.[1]?.toLowerCase();
    return [
      {
        name: "lo",
        hardwareAddress: "00:00:00:00:00:00",
        ipAddresses: [{ address: "127.0.0.1", type: "ipv4" }],
      },
      {
        name: "eth0",
        hardwareAddress: mac,
        ipAddresses: [{ address: `10.10.0.${vmid % 250}`, type: "ipv4" }],
      },
    ];
  }
}
