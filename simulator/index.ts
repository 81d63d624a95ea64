import { STORAGE_LOCK_TIMEOUT_MS, StorageIo } from "./model/storage-io.js";
import { writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createAdminHandler } from "./admin.js";
import { TicketAuthority } from "./auth/tickets.js";
import { TokenStore } from "./auth/tokens.js";
import type { RequestFault, SimContext } from "./context.js";
import { Faults } from "./faults.js";
import { jittered, NodeWorkers } from "./http/api-workers.js";
import { bootGuest } from "./guest/boot.js";
import { IpPools } from "./guest/ip-pools.js";
import { Cluster } from "./model/cluster.js";
import { FlockTable } from "./model/flock.js";
import type { HaResource } from "./model/ha.js";
import { loadState, saveState } from "./model/persistence.js";
import { TaskRunner } from "./model/tasks.js";
import type { Acl, StorageSeed, TaskRecord, VmRecord, Volume } from "./model/types.js";
import { resolveOptions, type SimulatorOptions } from "./options.js";
import { buildRouter } from "./routes/index.js";
import { createApiHandler, type RequestLogEntry } from "./server.js";
import { generateTls } from "./tls/certs.js";

export type {
  GuestAgentSource,
  GuestNetworkOptions,
  GuestOptions,
  SimulatorOptions,
  TaskType,
} from "./options.js";
export { PVE_VERSIONS, VERSION_PROFILES } from "./model/versions.js";
export type { PveVersion, VersionProfile } from "./model/versions.js";
export { REALISTIC_TASK_MS } from "./options.js";
export type { RequestLogEntry } from "./server.js";
export type { RequestMatch } from "./faults.js";
export { Faults } from "./faults.js";
export type { VmDump } from "./faults.js";
export type { SavedVolume } from "./model/persistence.js";
export type { HaResource } from "./model/ha.js";
export type {
  Acl,
  GuestState,
  NodeSeed,
  StorageSeed,
  TaskRecord,
  TemplateSeed,
  TokenSeed,
  UserSeed,
  VmConfig,
  VmRecord,
  Volume,
} from "./model/types.js";

/** Read-only view of the simulated cluster, for assertions in tests. */
export interface SimulatorModel {
  readonly vms: ReadonlyMap<number, Readonly<VmRecord>>;
  /** Volumes stored on `node`'s `storage` (shared storages show the same list on every node). */
  volumes(node: string, storage: string): readonly Readonly<Volume>[];
  readonly storages: readonly StorageSeed[];
  readonly tasks: ReadonlyMap<string, Readonly<TaskRecord>>;
  /** HA resources (`/etc/pve/ha/resources.cfg`) with the CRM's state, by VMID. */
  haResources(): readonly Readonly<HaResource>[];
  /** Whether someone holds the VM's flock (`/var/lock/qemu-server/lock-<vmid>.conf`). */
  isFileLocked(vmid: number): boolean;
}

export interface Simulator {
  /** Base URL without `/api2/json`, e.g. `https://127.0.0.1:41234`. */
  readonly url: string;
  /** The generated CA (PEM) to pin; "" with `tls: false`. */
  readonly caCertPem: string;
  /** Full-privilege token `root@pam!ci=<secret>` (PROXMOX_VE_API_TOKEN format). */
  readonly apiToken: string;
  /** Password of `root@pam` for `POST /access/ticket` (generated at start). */
  readonly rootPassword: string;
  readonly faults: Faults;
  readonly requestLog: readonly RequestLogEntry[];
  clearRequestLog(): void;
  /**
   * Calls `listener` each time an API request has been answered: on the response's `finish`
   * (the whole answer is handed to the socket), or at once for a dropped or reset connection.
   * It gets the request's log entry, synchronously, before the server reads another request
   * from this process's event loop — so a test can kill the client right after answer k.
   * Returns a function that removes the listener.
   */
  onResponse(listener: (entry: RequestLogEntry) => void): () => void;
  readonly model: SimulatorModel;
  /** Adds a token with the given ACLs; returns `user@realm!name=secret`. */
  addToken(tokenId: string, acls: readonly Acl[]): string;
  /** Deletes a token (an admin's `pveum user token remove`): its requests then get a 401. */
  removeToken(tokenId: string): boolean;
  /**
   * Adds a user who logs in with `password` (`POST /access/ticket`) and has the given ACLs;
   * with `tfa`, the login only gets a second-factor challenge (`NeedTFA`).
   */
  addUser(
    userid: string,
    password: string,
    acls: readonly Acl[],
    options?: { tfa?: boolean },
  ): void;
  /** Finishes running tasks at once, writes the state file, and stops listening. */
  close(): Promise<void>;
}

/** Starts a PVE API simulator on loopback (HTTPS by default) and resolves when it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const opts = resolveOptions(options);
  const tls = opts.tls ? generateTls(opts.host) : undefined;
  const cluster = new Cluster(opts.nodes, opts.storages, Object.keys(opts.bridges));
  const pools = new IpPools(opts.bridges);
  const rootSecret = TokenStore.newSecret();
  const rootPassword = TokenStore.newSecret();
  const everything = [{ path: "/", privileges: opts.profile.privileges }];
  const tokens = new TokenStore(
    [{ tokenId: "root@pam!ci", secret: rootSecret, acls: everything }, ...opts.tokens],
    [{ userid: "root@pam", password: rootPassword, acls: everything }, ...opts.users],
    opts.profile.privileges,
  );
  let saveTimer: NodeJS.Timeout | undefined;
  const save = (): void => {
    if (saveTimer !== undefined) clearTimeout(saveTimer);
    saveTimer = undefined;
    if (opts.stateFile !== undefined) saveState(opts.stateFile, cluster, tasks.tasks, pools);
  };
  const changed = (): void => {
    // Debounced: bursts of changes (a clone writes several times) cost one write.
    if (opts.stateFile !== undefined && saveTimer === undefined) saveTimer = setTimeout(save, 50);
  };
  const tasks = new TaskRunner({
    durationMs: (type) =>
      jittered(opts.taskDurationsMs[type] ?? opts.defaultTaskMs, opts.taskJitter),
    onChange: changed,
  });
  const requestFaults: RequestFault[] = [];
  const sim: SimContext = {
    cluster,
    tasks,
    tokens,
    tickets: new TicketAuthority(opts.ticketLifetimeMs),
    flocks: new FlockTable(),
    storageIo: new StorageIo({
      bandwidthMiBps: opts.storageBandwidthMiBps,
      allocMs: opts.storageAllocMs,
      lockTimeoutMs: STORAGE_LOCK_TIMEOUT_MS,
      sleep: (ms) => tasks.sleep(ms),
    }),
    pools,
    requestFaults,
    workers: new NodeWorkers(opts.apiWorkers),
    options: opts,
    sslFingerprint: tls?.fingerprint ?? "",
    changed,
    bootGuest: (vmid) => {
      void tasks.sleep(jittered(opts.guestBootMs, opts.taskJitter)).then(() => {
        const vm = cluster.vms.get(vmid);
        if (vm === undefined || vm.status !== "running") return;
        const { agentInstalled } = bootGuest(sim, vm);
        // An agent that is not installed never answers; a slow one answers after its delay.
        if (agentInstalled) vm.guest.agentUpAt = Date.now() + opts.guest.agentDelayMs;
        else delete vm.guest.agentUpAt;
        changed();
      });
    },
  };
  const loaded =
    opts.stateFile !== undefined && loadState(opts.stateFile, cluster, tasks.tasks, pools);
  if (!loaded) seedTemplates(cluster, opts.templates);

  const faults = new Faults(sim);
  const requestLog: RequestLogEntry[] = [];
  const admin = createAdminHandler({ faults, requestLog, snapshot: () => snapshot(cluster) });
  const responseListeners = new Set<(entry: RequestLogEntry) => void>();
  const answered = (entry: RequestLogEntry): void => {
    for (const listener of [...responseListeners]) listener(entry);
  };
  const handler = createApiHandler(sim, buildRouter(), requestLog, answered, admin);
  const server: Server = tls
    ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  if (tls !== undefined && opts.caFile !== undefined) writeFileSync(opts.caFile, tls.caCertPem);
  save();

  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? "https" : "http"}://${host}:${address.port}`,
    caCertPem: tls?.caCertPem ?? "",
    apiToken: `root@pam!ci=${rootSecret}`,
    rootPassword,
    faults,
    requestLog,
    clearRequestLog: () => void (requestLog.length = 0),
    onResponse: (listener) => {
      responseListeners.add(listener);
      return () => void responseListeners.delete(listener);
    },
    model: {
      vms: cluster.vms,
      volumes: (node, storage) => cluster.volumesIn(node, storage),
      storages: cluster.storages,
      tasks: tasks.tasks,
      haResources: () => cluster.ha.list(),
      isFileLocked: (vmid) => sim.flocks.isHeld(vmid),
    },
    addToken: (tokenId, acls) => tokens.add({ tokenId, secret: TokenStore.newSecret(), acls }),
    removeToken: (tokenId) => tokens.remove(tokenId),
    addUser: (userid, password, acls, options) =>
      tokens.addUser({ userid, password, acls, tfa: options?.tfa }),
    close: () =>
      (closing ??= (async () => {
        await tasks.fastForward();
        save();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}

function seedTemplates(cluster: Cluster, templates: SimulatorOptions["templates"] & object): void {
  const ctime = Math.floor(Date.now() / 1000);
  for (const t of templates) {
    const vm = Cluster.newVm(t.vmid, t.node, { ...t.config });
    // Seeded VMs have been known to pvestatd for a long time: no "unknown" phase.
    vm.createdAt = 0;
    cluster.vms.set(t.vmid, vm);
    cluster.observe(vm, 0);
    for (const [key, value] of Object.entries(t.config)) {
      const m = /^(ide|sata|scsi|virtio)\d+$/.test(key)
        ? /^([^:,]+):([^,]+)(?:,.*size=(\d+[KMGT]?))?/.exec(String(value))
        : null;
      if (m === null || String(value).includes("media=cdrom")) continue;
      const size = m[3] ?? "0";
      const unit = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[size.slice(-1)] ?? 1;
      cluster.putVolume(t.node, {
        volid: `${m[1]}:${m[2]}`,
        storage: m[1] ?? "",
        content: "images",
        format: "raw",
        size: parseInt(size, 10) * unit,
        ctime,
        vmid: t.vmid,
      });
    }
  }
}

function snapshot(cluster: Cluster): unknown {
  return {
    nodes: [...cluster.nodes.values()].map((node) => ({ ...node, bridges: [...node.bridges] })),
    vms: [...cluster.vms.values()],
    volumes: [...cluster.volumes.values()].map(({ data, ...rest }) => ({
      ...rest,
      hasData: data !== undefined,
    })),
  };
}
