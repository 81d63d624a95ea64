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
  DownloadUrlRequest,
  GuestInterface,
  IsoUpload,
  MappingType,
  MoveTarget,
  NodeBridge,
  NodeStorage,
  NodeVm,
  NodeTask,
  Permissions,
  PoolMembership,
  ProxmoxApi,
  ProxmoxVersion,
  SnapshotRequest,
  ResourceMapping,
  StorageVolume,
  TaskLogLine,
  TaskStatus,
  Upid,
  VmConfig,
  VmPendingConfig,
  VmSnapshot,
  VmSnapshots,
  VmStatus,
} from "../../provider/pve/api/proxmox-api";
import { PermanentError } from "../../provider/pve/errors";

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

type Method = keyof ProxmoxApi;

export class FakeProxmoxApi implements ProxmoxApi {
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
  readonly #tasks = new Map<Upid, { node: string; exitstatus: string }>();
  #macCounter = 0;
  #upidCounter = 0;

  constructor() {
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

  #enter(method: Method, args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.#failures.get(method)?.shift();
    if (failure) throw failure;
  }

  #vm(node: string, vmid: number): FakeVm {
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

  #task(node: string, type: string, id: string | number): Upid {
    const upid = `UPID:${node}:0000${(++this.#upidCounter).toString(16).padStart(4, "0").toUpperCase()}:00000000:00000000:${type}:${id}:root@pam!ci:`;
    this.#tasks.set(upid, { node, exitstatus: this.taskOutcomes.shift() ?? "OK" });
    return upid;
  }

  #volumeSet(node: string, storage: string): Set<string> {
    const shared = this.storages.find((s) => s.storage === storage)?.shared;
    const key = `${shared ? "*" : node}/${storage}`;
    let set = this.volumes.get(key);
    if (!set) this.volumes.set(key, (set = new Set()));
    return set;
  }

  async version(): Promise<ProxmoxVersion> {
    this.#enter("version", []);
    return { version: "8.4.5", release: "8.4", repoid: "fake" };
  }
  async permissions(): Promise<Permissions> {
    this.#enter("permissions", []);
    return { "/": { "VM.Allocate": 1 } };
  }
  async clusterVms(): Promise<readonly ClusterVm[]> {
    this.#enter("clusterVms", []);
    const rows: ClusterVm[] = [...this.vms].map(([vmid, vm]) => ({
      vmid,
      node: vm.node,
      type: "qemu",
      name: vm.config["lock"] === "clone" ? undefined : (vm.config["name"] as string | undefined),
      status: vm.status,
      template: vm.template ?? false,
      lock: vm.config["lock"] as string | undefined,
      pool: this.#poolOf(vmid),
    }));
    return this.listingOverride ? this.listingOverride(rows) : rows;
  }
  async nextVmid(): Promise<number> {
    this.#enter("nextVmid", []);
    let id = 100;
    while (this.vms.has(id)) id++;
    return id;
  }
  async nodes(): Promise<readonly ClusterNode[]> {
    this.#enter("nodes", []);
    return this.nodeList;
  }
  async nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    this.#enter("nodeStorages", [node]);
    return this.storages;
  }
  async nodeBridges(node: string): Promise<readonly NodeBridge[]> {
    this.#enter("nodeBridges", [node]);
    return this.bridges.map((iface) => ({ iface, type: "bridge" }));
  }
  async resourceMapping(type: MappingType, id: string): Promise<ResourceMapping> {
    this.#enter("resourceMapping", [type, id]);
    const mapping = this.mappings.get(`${type}/${id}`);
    if (mapping === undefined)
      throw new PermanentError("NOT_FOUND", `mapping '${id}' not found`, { status: 500 });
    return mapping;
  }
  async vmConfig(node: string, vmid: number): Promise<VmConfig> {
    this.#enter("vmConfig", [node, vmid]);
    return { ...this.#vm(node, vmid).config, digest: "d" };
  }
  async vmPending(node: string, vmid: number): Promise<VmPendingConfig> {
    this.#enter("vmPending", [node, vmid]);
    const vm = this.#vm(node, vmid);
    const current = Object.fromEntries(
      Object.entries(vm.config).filter(([, value]) => value !== undefined),
    ) as VmConfig;
    const pending = vm.pending ?? {};
    const config: Record<string, string | number | boolean | undefined> = { ...current };
    for (const [key, value] of Object.entries(pending)) config[key] = value ?? undefined;
    return { config, current, pending: Object.keys(pending).sort() };
  }
  async updateVmConfig(node: string, vmid: number, update: ConfigUpdate): Promise<Upid | null> {
    this.#enter("updateVmConfig", [node, vmid, update]);
    const vm = this.#vm(node, vmid);
    for (const [key, value] of Object.entries(update.set ?? {})) vm.config[key] = value;
    for (const key of update.delete ?? []) vm.config[key] = undefined;
    return this.#task(node, "qmconfig", vmid);
  }
  async updateVmConfigSync(node: string, vmid: number, update: ConfigUpdate): Promise<void> {
    this.#enter("updateVmConfigSync", [node, vmid, update]);
    const vm = this.#vm(node, vmid);
    for (const [key, value] of Object.entries(update.set ?? {})) vm.config[key] = value;
    for (const key of update.delete ?? []) vm.config[key] = undefined;
  }
  async cloneVm(request: CloneRequest): Promise<Upid> {
    this.#enter("cloneVm", [request]);
    const source = this.#vm(request.node, request.vmid);
    if (this.vms.has(request.newid)) {
      throw new PermanentError(
        "ALREADY_EXISTS",
        `unable to create VM ${request.newid}: config file already exists`,
        { node: request.node, vmid: request.newid },
      );
    }
    const mac = `BC:24:11:00:00:${(++this.#macCounter).toString(16).padStart(2, "0").toUpperCase()}`;
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
    return this.#task(request.node, "qmclone", request.vmid);
  }
  async createVm(request: CreateVmRequest): Promise<Upid> {
    this.#enter("createVm", [request]);
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
    return this.#task(request.node, "qmcreate", request.vmid);
  }
  async convertToTemplate(node: string, vmid: number): Promise<Upid | null> {
    this.#enter("convertToTemplate", [node, vmid]);
    const vm = this.#vm(node, vmid);
    vm.template = true;
    vm.config["template"] = true;
    for (const [key, value] of Object.entries(vm.config)) {
      if (typeof value === "string" && value.includes(`:vm-${vmid}-disk-`))
        vm.config[key] = value.replace(`:vm-${vmid}-disk-`, `:base-${vmid}-disk-`);
    }
    return this.#task(node, "qmtemplate", vmid);
  }
  async vmStatus(node: string, vmid: number): Promise<VmStatus> {
    this.#enter("vmStatus", [node, vmid]);
    const vm = this.#vm(node, vmid);
    return { status: vm.status, qmpstatus: vm.status, agent: Boolean(vm.config["agent"]) };
  }
  async nodeVms(node: string): Promise<readonly NodeVm[]> {
    this.#enter("nodeVms", [node]);
    return [...this.vms]
      .filter(([, vm]) => vm.node === node)
      .map(([vmid, vm]) => ({ vmid, status: vm.status, qmpstatus: vm.status }));
  }
  async startVm(node: string, vmid: number): Promise<Upid> {
    this.#enter("startVm", [node, vmid]);
    this.#vm(node, vmid).status = "running";
    return this.#task(node, "qmstart", vmid);
  }
  async stopVm(node: string, vmid: number): Promise<Upid> {
    this.#enter("stopVm", [node, vmid]);
    this.#vm(node, vmid).status = "stopped";
    return this.#task(node, "qmstop", vmid);
  }
  async shutdownVm(node: string, vmid: number): Promise<Upid> {
    this.#enter("shutdownVm", [node, vmid]);
    this.#vm(node, vmid).status = "stopped";
    return this.#task(node, "qmshutdown", vmid);
  }
  async rebootVm(node: string, vmid: number): Promise<Upid> {
    this.#enter("rebootVm", [node, vmid]);
    const vm = this.#vm(node, vmid);
    // A reboot starts the VM on its pending config, as PVE's does.
    for (const [key, value] of Object.entries(vm.pending ?? {}))
      vm.config[key] = value ?? undefined;
    vm.pending = {};
    return this.#task(node, "qmreboot", vmid);
  }
  async migrateVm(node: string, vmid: number, target: string, online: boolean): Promise<Upid> {
    this.#enter("migrateVm", [node, vmid, target, online]);
    this.#vm(node, vmid).node = target;
    return this.#task(node, "qmigrate", vmid);
  }
  async updatePoolMembership(change: PoolMembership): Promise<void> {
    this.#enter("updatePoolMembership", [change]);
    const members = this.pools.get(change.poolid);
    if (members === undefined) throw new Error(`pool '${change.poolid}' does not exist`);
    if (change.remove) members.delete(change.vmid);
    else members.add(change.vmid);
  }
  #poolOf(vmid: number): string | undefined {
    return [...this.pools].find(([, members]) => members.has(vmid))?.[0];
  }
  async destroyVm(node: string, vmid: number): Promise<Upid> {
    this.#enter("destroyVm", [node, vmid]);
    this.#vm(node, vmid);
    const upid = this.#task(node, "qmdestroy", vmid);
    // A failed destroy task leaves the VM, as PVE does.
    if (this.#tasks.get(upid)?.exitstatus === "OK") {
      this.vms.delete(vmid);
      for (const members of this.pools.values()) members.delete(vmid);
    }
    return upid;
  }
  async moveDisk(node: string, vmid: number, disk: string, target: MoveTarget): Promise<Upid> {
    this.#enter("moveDisk", [node, vmid, disk, target]);
    const vm = this.#vm(node, vmid);
    vm.config[disk] = String(vm.config[disk]).replace(/^[^:]+:/, `${target.storage}:`);
    return this.#task(node, "qmmove", vmid);
  }
  async resizeDisk(node: string, vmid: number, disk: string, size: string): Promise<Upid | null> {
    this.#enter("resizeDisk", [node, vmid, disk, size]);
    const vm = this.#vm(node, vmid);
    vm.config[disk] = String(vm.config[disk]).replace(/size=[^,]+/, `size=${size}`);
    return this.#task(node, "resize", vmid);
  }
  async agentInterfaces(node: string, vmid: number): Promise<readonly GuestInterface[]> {
    this.#enter("agentInterfaces", [node, vmid]);
    const vm = this.#vm(node, vmid);
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
  async vmSnapshots(node: string, vmid: number): Promise<VmSnapshots> {
    this.#enter("vmSnapshots", [node, vmid]);
    const snapshots = this.#vm(node, vmid).snapshots ?? [];
    return { snapshots, parent: snapshots.at(-1)?.name };
  }
  async createSnapshot(node: string, vmid: number, request: SnapshotRequest): Promise<Upid> {
    this.#enter("createSnapshot", [node, vmid, request]);
    const vm = this.#vm(node, vmid);
    const upid = this.#task(node, "qmsnapshot", vmid);
    const { name, description = "", vmstate = false } = request;
    if (this.#tasks.get(upid)?.exitstatus === "OK")
      (vm.snapshots ??= []).push({
        name,
        description,
        vmstate,
        parent: vm.snapshots?.at(-1)?.name,
      });
    return upid;
  }
  async updateSnapshot(node: string, vmid: number, name: string, description: string) {
    this.#enter("updateSnapshot", [node, vmid, name, description]);
    const vm = this.#vm(node, vmid);
    vm.snapshots = vm.snapshots?.map((s) => (s.name === name ? { ...s, description } : s));
  }
  async rollbackSnapshot(node: string, vmid: number, name: string, start: boolean) {
    this.#enter("rollbackSnapshot", [node, vmid, name, start]);
    this.#vm(node, vmid);
    return this.#task(node, "qmrollback", vmid);
  }
  async deleteSnapshot(node: string, vmid: number, name: string): Promise<Upid> {
    this.#enter("deleteSnapshot", [node, vmid, name]);
    const vm = this.#vm(node, vmid);
    const upid = this.#task(node, "qmdelsnapshot", vmid);
    if (this.#tasks.get(upid)?.exitstatus === "OK")
      vm.snapshots = vm.snapshots?.filter((snapshot) => snapshot.name !== name);
    return upid;
  }
  async uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid> {
    this.#enter("uploadIso", [node, storage, iso.filename]);
    this.#volumeSet(node, storage).add(`${storage}:iso/${iso.filename}`);
    return this.#task(node, "imgcopy", "");
  }
  async downloadUrl(request: DownloadUrlRequest): Promise<Upid> {
    this.#enter("downloadUrl", [request]);
    this.#volumeSet(request.node, request.storage).add(
      `${request.storage}:${request.content}/${request.filename}`,
    );
    return this.#task(request.node, "download", request.filename);
  }
  async storageContent(
    node: string,
    storage: string,
    content?: string,
  ): Promise<readonly StorageVolume[]> {
    this.#enter("storageContent", [node, storage]);
    // The content is the volume name's directory, as PVE's parse_volname reads it.
    return [...this.#volumeSet(node, storage)]
      .map((volid) => ({ volid, content: /:([a-z]+)\//.exec(volid)?.[1] ?? "images" }))
      .filter((volume) => content === undefined || volume.content === content);
  }
  async deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null> {
    this.#enter("deleteVolume", [node, storage, volid]);
    this.#volumeSet(node, storage).delete(volid);
    return this.#task(node, "imgdel", storage);
  }
  async taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    this.#enter("taskStatus", [node, upid]);
    const task = this.#tasks.get(upid);
    return { upid, node, status: "stopped", exitstatus: task?.exitstatus ?? "OK" };
  }
  /** Every fake task ends at once, so the node's list shows it archived with its exit status. */
  async nodeTasks(node: string): Promise<readonly NodeTask[]> {
    this.#enter("nodeTasks", [node]);
    return [...this.#tasks]
      .filter(([, task]) => task.node === node)
      .map(([upid, task]) => ({ upid, status: task.exitstatus }));
  }
  async taskLog(): Promise<readonly TaskLogLine[]> {
    return [{ n: 1, t: "TASK OK" }];
  }
}
