import type { RequestFault, SimContext } from "./context.js";
import { releaseLeases } from "./guest/boot.js";
import { putSnippet } from "./model/hookscript.js";
import { restoredVolume, type SavedVolume } from "./model/persistence.js";
import type { VmRecord } from "./model/types.js";
import { unset } from "./model/vm-config.js";
import { markStopped, scheduleCrm } from "./routes/qemu-power.js";
import { MAPPING_TYPES, type Mapping, type MappingType } from "./model/mappings.js";

/** Which requests a fault applies to: a method (any when absent) and a path regex below /api2/json. */
export interface RequestMatch {
  readonly method?: string;
  readonly path: RegExp | string;
  /** How many matching requests the fault applies to (default 1). */
  readonly count?: number;
}

/** One VM as JSON: its record and every volume it uses, each with the node that holds it. */
export interface VmDump {
  readonly vm: VmRecord;
  readonly volumes: readonly { readonly node: string; readonly volume: SavedVolume }[];
}

/** Programmatic fault injection and out-of-band changes (drift), for tests and the demo. */
export class Faults {
  constructor(private readonly sim: SimContext) {}

  private add(
    kind: RequestFault["kind"],
    match: RequestMatch,
    extra: { status?: number; message?: string; delayMs?: number },
  ): void {
    this.sim.requestFaults.push({
      kind,
      ...(match.method === undefined ? {} : { method: match.method.toUpperCase() }),
      path: typeof match.path === "string" ? new RegExp(match.path) : match.path,
      remaining: match.count ?? 1,
      ...extra,
    });
  }

  /** The next matching requests fail with this status; the message is the reason phrase and body `message`. */
  failRequests(match: RequestMatch, status: number, message: string): void {
    this.add("fail", match, { status, message });
  }

  /** The next matching requests are answered after `delayMs`. */
  delayRequests(match: RequestMatch, delayMs: number): void {
    this.add("delay", match, { delayMs });
  }

  /** The next matching requests get their connection closed without an answer. */
  dropRequests(match: RequestMatch): void {
    this.add("drop", match, {});
  }

  /**
   * The next matching requests get their connection reset (a TCP RST, `ECONNRESET` on the
   * client) before any answer, as a proxy or a crashing pveproxy worker would.
   */
  resetRequests(match: RequestMatch): void {
    this.add("reset", match, {});
  }

  /**
   * The next matching requests are carried out, and then their connection is closed without an
   * answer: the request took effect but the client cannot know, as when a proxy or the network
   * fails after PVE has started the work. A client must find out by looking, not by resending.
   */
  loseAnswers(match: RequestMatch): void {
    this.add("lose-answer", match, {});
  }

  /** Requests for `/nodes/<node>/…` get 595 (unreachable) or 596 (timed out) with an empty body. */
  nodeDown(node: string, status: 595 | 596 = 595, reason?: string): void {
    const state = this.sim.cluster.nodes.get(node);
    if (state === undefined) throw new Error(`no such node '${node}'`);
    state.down = {
      status,
      reason: reason ?? (status === 595 ? "No route to host" : "Connection timed out"),
    };
  }

  nodeUp(node: string): void {
    const state = this.sim.cluster.nodes.get(node);
    if (state !== undefined) delete state.down;
  }

  /**
   * Sets the node's bridges, as an admin editing `/etc/network/interfaces` and reloading would:
   * VMs on a bridge no longer there fail to start, and the node's network listing changes.
   */
  setBridges(node: string, bridges: readonly string[]): void {
    const state = this.sim.cluster.nodes.get(node);
    if (state === undefined) throw new Error(`no such node '${node}'`);
    state.bridges.clear();
    for (const bridge of bridges) state.bridges.add(bridge);
  }

  /**
   * Adds or replaces a resource mapping, as root does in Datacenter → Resource Mappings; unlike
   * `POST /cluster/mapping/<type>` it works on every release (a fixture for older ones).
   */
  setMapping(type: string, id: string, mapping: Mapping): void {
    if (!(MAPPING_TYPES as readonly string[]).includes(type))
      throw new Error(`no mapping type '${type}' (${MAPPING_TYPES.join(", ")})`);
    if (!Array.isArray(mapping.map) || !mapping.map.every((e) => typeof e === "string"))
      throw new Error(
        "'map' (a list of node entries, e.g. node=pve1,path=0000:01:00.0) is required",
      );
    this.sim.cluster.mappings.set(type as MappingType, id, mapping);
    this.sim.changed();
  }

  /** Puts an (executable) script in a storage's `snippets/`, for a VM's `hookscript`. */
  putSnippet(node: string, storage: string, file: string, executable: boolean): string {
    const volid = putSnippet(this.sim.cluster, node, storage, file, executable);
    this.sim.changed();
    return volid;
  }

  /** The next matching task(s) end with `TASK ERROR: <message>` and change nothing. */
  failTasks(match: { type?: string; id?: string; count?: number }, message: string): void {
    this.sim.tasks.faults.push({ ...match, message, remaining: match.count ?? 1 });
  }

  /** The next matching task(s) do their work and end with `WARNINGS: <n>`. */
  warnTasks(match: { type?: string; id?: string; count?: number }, warnings: number): void {
    this.sim.tasks.faults.push({ ...match, warnings, remaining: match.count ?? 1 });
  }

  /** Sets (or, with null, clears) the config `lock:` as a backup or snapshot job would. */
  setLock(vmid: number, lock: string | null): void {
    const vm = this.vm(vmid);
    if (lock === null) delete vm.config["lock"];
    else vm.config["lock"] = lock;
    this.sim.changed();
  }

  /** Holds the VM's flock for `ms`, so lock waiters hit "can't lock file … got timeout". */
  holdFileLock(vmid: number, ms: number): Promise<void> {
    return this.sim.flocks.acquire(vmid, true, 0).then(async (release) => {
      await this.sim.tasks.sleep(ms);
      release();
    });
  }

  setListingLag(ms: number): void {
    this.sim.options.listingLagMs = ms;
  }

  /** Stops the VM at once, as if the guest powered off. */
  stopVm(vmid: number): void {
    markStopped(this.sim, this.vm(vmid));
  }

  /** Changes config keys out of band (null deletes), e.g. `{ cores: 4 }` for drift tests. */
  setConfig(vmid: number, changes: Readonly<Record<string, string | number | null>>): void {
    const vm = this.vm(vmid);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) unset(vm.config, key);
      else vm.config[key] = value;
    }
    this.sim.cluster.observe(vm);
    this.sim.changed();
  }

  /** Moves the VM's config (and its local volumes) to another node at once. */
  migrateVm(vmid: number, target: string): void {
    const vm = this.vm(vmid);
    if (!this.sim.cluster.nodes.has(target)) throw new Error(`no such node '${target}'`);
    for (const volume of [...this.sim.cluster.volumes.values()]) {
      if (volume.vmid === vmid && volume.node === vm.node) {
        this.sim.cluster.deleteVolume(vm.node, volume.volid);
        this.sim.cluster.putVolume(target, volume);
      }
    }
    vm.node = target;
    this.sim.changed();
  }

  /**
   * Puts the VM under HA (`ha-manager add vm:N --state <state>`), as an admin would by hand;
   * the CRM then brings the VM to that state after `haCrmDelayMs`.
   */
  putUnderHa(vmid: number, state: "started" | "stopped" = "started"): void {
    this.vm(vmid);
    if (this.sim.cluster.ha.configured(vmid) !== undefined) return;
    this.sim.cluster.ha.add({ sid: `vm:${vmid}`, vmid, state });
    this.sim.changed();
    scheduleCrm(this.sim, vmid);
  }

  /** Removes the VM and its disks at once. */
  deleteVm(vmid: number): void {
    const vm = this.vm(vmid);
    for (const volume of [...this.sim.cluster.volumes.values()]) {
      if (volume.vmid === vmid) this.sim.cluster.deleteVolume(vm.node, volume.volid);
    }
    releaseLeases(this.sim, vm);
    this.sim.cluster.removeVm(vmid);
    this.sim.changed();
  }

  /**
   * Puts back a VM and its volumes as a dump holds them (config with its pending section, power
   * state, the guest's view, the seed ISO's bytes): e.g. a VM an older simulator release made,
   * so a newer release of a client can take it over.
   */
  restoreVm(dump: VmDump): void {
    const { vm } = dump;
    if (this.sim.cluster.vms.has(vm.vmid)) throw new Error(`VM ${vm.vmid} already exists`);
    if (!this.sim.cluster.nodes.has(vm.node)) throw new Error(`no such node '${vm.node}'`);
    for (const { node, volume } of dump.volumes) {
      this.sim.cluster.putVolume(node, restoredVolume(volume));
    }
    this.sim.cluster.addVm(structuredClone(vm));
    this.sim.changed();
  }

  /** Removes every pending request and task fault, and brings all nodes back. */
  clear(): void {
    this.sim.requestFaults.length = 0;
    this.sim.tasks.faults.length = 0;
    for (const node of this.sim.cluster.nodes.values()) delete node.down;
  }

  private vm(vmid: number) {
    const vm = this.sim.cluster.vms.get(vmid);
    if (vm === undefined) throw new Error(`no such VM ${vmid}`);
    return vm;
  }
}
