import { PveHttpClient, type HttpApiOptions } from "./http-client.js";
import { multipartUpload } from "./multipart.js";
import type {
  ClusterNode,
  ClusterVm,
  CloneRequest,
  ConfigUpdate,
  CreateVmRequest,
  DownloadUrlRequest,
  GuestInterface,
  MigrateDisks,
  IsoUpload,
  MappingType,
  MoveTarget,
  NodeBridge,
  NodeStorage,
  NodeVm,
  NodeTask,
  NodeTaskQuery,
  Permissions,
  PoolMembership,
  ProxmoxApi,
  ProxmoxVersion,
  PveParams,
  SnapshotRequest,
  ResourceMapping,
  StorageVolume,
  TaskLogLine,
  TaskStatus,
  Upid,
  VmConfig,
  VmPendingConfig,
  VmSnapshots,
  VmStatus,
} from "./proxmox-api.js";
import * as schemas from "./responses.js";

export type { HttpApiOptions } from "./http-client.js";

/** Drops undefined values so optional inputs are simply not sent. */
function defined(params: Record<string, string | number | boolean | undefined>): PveParams {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * The real {@link ProxmoxApi}: each call one request of {@link PveHttpClient} (PVE's JSON API
 * over undici, authenticated, parsed and classified there).
 */
export class HttpProxmoxApi implements ProxmoxApi {
  readonly #http: PveHttpClient;

  constructor(options: HttpApiOptions | PveHttpClient) {
    this.#http = options instanceof PveHttpClient ? options : new PveHttpClient(options);
  }

  /** A view of this client whose requests are cancelled by `signal`; it shares pool and login. */
  withSignal(signal: AbortSignal | undefined): HttpProxmoxApi {
    return new HttpProxmoxApi(this.#http.withSignal(signal));
  }

  /** Never prints a credential: `util.inspect(api)` shows only the origin and who logs in. */
  toJSON(): { origin: string; login: string } {
    return this.#http.toJSON();
  }

  version(): Promise<ProxmoxVersion> {
    return this.#http.request("GET", ["version"], schemas.versionSchema);
  }

  permissions(): Promise<Permissions> {
    return this.#http.request("GET", ["access", "permissions"], schemas.permissionsSchema);
  }

  clusterVms(): Promise<readonly ClusterVm[]> {
    return this.#http.request("GET", ["cluster", "resources"], schemas.clusterVmsSchema, {
      query: { type: "vm" },
    });
  }

  nextVmid(): Promise<number> {
    return this.#http.request("GET", ["cluster", "nextid"], schemas.nextVmidSchema);
  }

  nodes(): Promise<readonly ClusterNode[]> {
    return this.#http.request("GET", ["nodes"], schemas.nodesSchema);
  }

  nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    return this.#http.request("GET", ["nodes", node, "storage"], schemas.nodeStoragesSchema);
  }

  nodeBridges(node: string): Promise<readonly NodeBridge[]> {
    return this.#http.request("GET", ["nodes", node, "network"], schemas.nodeBridgesSchema, {
      query: { type: "any_bridge" },
    });
  }

  resourceMapping(type: MappingType, id: string): Promise<ResourceMapping> {
    return this.#http.request(
      "GET",
      ["cluster", "mapping", type, id],
      schemas.resourceMappingSchema,
    );
  }

  async vmConfig(node: string, vmid: number): Promise<VmConfig> {
    return this.#http.request(
      "GET",
      ["nodes", node, "qemu", vmid, "config"],
      schemas.vmConfigSchema,
    );
  }

  vmPending(node: string, vmid: number): Promise<VmPendingConfig> {
    return this.#http.request(
      "GET",
      ["nodes", node, "qemu", vmid, "pending"],
      schemas.vmPendingSchema,
    );
  }

  updateVmConfig(node: string, vmid: number, update: ConfigUpdate): Promise<Upid | null> {
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "config"],
      schemas.optionalUpidSchema,
      { form: configForm(update) },
    );
  }

  updateVmConfigSync(node: string, vmid: number, update: ConfigUpdate): Promise<void> {
    return this.#http.request(
      "PUT",
      ["nodes", node, "qemu", vmid, "config"],
      schemas.nothingSchema,
      {
        form: configForm(update),
      },
    );
  }

  cloneVm(request: CloneRequest): Promise<Upid> {
    const form = defined({
      newid: request.newid,
      name: request.name,
      description: request.description,
      target: request.target,
      storage: request.storage,
      full: request.full,
      pool: request.pool,
    });
    return this.#http.request(
      "POST",
      ["nodes", request.node, "qemu", request.vmid, "clone"],
      schemas.upidSchema,
      { form },
    );
  }

  createVm(request: CreateVmRequest): Promise<Upid> {
    return this.#http.request("POST", ["nodes", request.node, "qemu"], schemas.upidSchema, {
      form: { ...request.config, vmid: request.vmid },
    });
  }

  convertToTemplate(node: string, vmid: number): Promise<Upid | null> {
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "template"],
      schemas.optionalUpidSchema,
      { form: {} },
    );
  }

  vmStatus(node: string, vmid: number): Promise<VmStatus> {
    return this.#http.request(
      "GET",
      ["nodes", node, "qemu", vmid, "status", "current"],
      schemas.vmStatusSchema,
    );
  }

  nodeVms(node: string): Promise<readonly NodeVm[]> {
    return this.#http.request("GET", ["nodes", node, "qemu"], schemas.nodeVmsSchema, {
      query: { full: true },
    });
  }

  #power(node: string, vmid: number, action: string, form: PveParams = {}): Promise<Upid> {
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "status", action],
      schemas.upidSchema,
      {
        form,
      },
    );
  }

  startVm(node: string, vmid: number): Promise<Upid> {
    return this.#power(node, vmid, "start");
  }

  stopVm(node: string, vmid: number): Promise<Upid> {
    return this.#power(node, vmid, "stop");
  }

  shutdownVm(node: string, vmid: number, timeoutSeconds?: number): Promise<Upid> {
    return this.#power(node, vmid, "shutdown", defined({ timeout: timeoutSeconds }));
  }

  rebootVm(node: string, vmid: number): Promise<Upid> {
    return this.#power(node, vmid, "reboot");
  }

  migrateVm(
    node: string,
    vmid: number,
    target: string,
    online: boolean,
    disks?: MigrateDisks,
  ): Promise<Upid> {
    const form = defined({
      target,
      online,
      "with-local-disks": disks?.withLocalDisks,
      targetstorage: disks?.targetStorage,
    });
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "migrate"],
      schemas.upidSchema,
      {
        form,
      },
    );
  }

  updatePoolMembership(change: PoolMembership): Promise<void> {
    // The path form is the one 7.4, 8.x and 9.x all serve (docs/design.md, "Pool membership").
    return this.#http.request("PUT", ["pools", change.poolid], schemas.nothingSchema, {
      form: defined({ vms: change.vmid, delete: change.remove ? true : undefined }),
    });
  }

  destroyVm(node: string, vmid: number): Promise<Upid> {
    // PVE's HTTP server refuses a body on DELETE ("Unexpected content"): parameters go in the query.
    return this.#http.request("DELETE", ["nodes", node, "qemu", vmid], schemas.upidSchema, {
      query: { purge: true, "destroy-unreferenced-disks": true },
    });
  }

  resizeDisk(node: string, vmid: number, disk: string, size: string): Promise<Upid | null> {
    return this.#http.request(
      "PUT",
      ["nodes", node, "qemu", vmid, "resize"],
      schemas.optionalUpidSchema,
      {
        form: { disk, size },
      },
    );
  }

  moveDisk(node: string, vmid: number, disk: string, target: MoveTarget): Promise<Upid> {
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "move_disk"],
      schemas.upidSchema,
      {
        form: defined({ disk, storage: target.storage, format: target.format, delete: true }),
      },
    );
  }

  agentInterfaces(node: string, vmid: number): Promise<readonly GuestInterface[]> {
    return this.#http.request(
      "GET",
      ["nodes", node, "qemu", vmid, "agent", "network-get-interfaces"],
      schemas.agentInterfacesSchema,
    );
  }

  vmSnapshots(node: string, vmid: number): Promise<VmSnapshots> {
    const path = ["nodes", node, "qemu", vmid, "snapshot"];
    return this.#http.request("GET", path, schemas.vmSnapshotsSchema);
  }

  createSnapshot(node: string, vmid: number, request: SnapshotRequest): Promise<Upid> {
    const { name: snapname, description, vmstate } = request;
    return this.#http.request(
      "POST",
      ["nodes", node, "qemu", vmid, "snapshot"],
      schemas.upidSchema,
      {
        form: defined({ snapname, description, vmstate }),
      },
    );
  }

  updateSnapshot(node: string, vmid: number, name: string, description: string): Promise<void> {
    const path = ["nodes", node, "qemu", vmid, "snapshot", name, "config"];
    return this.#http.request("PUT", path, schemas.nothingSchema, { form: { description } });
  }

  rollbackSnapshot(node: string, vmid: number, name: string, start: boolean): Promise<Upid> {
    const path = ["nodes", node, "qemu", vmid, "snapshot", name, "rollback"];
    return this.#http.request("POST", path, schemas.upidSchema, { form: start ? { start } : {} });
  }

  deleteSnapshot(node: string, vmid: number, name: string): Promise<Upid> {
    const path = ["nodes", node, "qemu", vmid, "snapshot", name];
    return this.#http.request("DELETE", path, schemas.upidSchema);
  }

  uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid> {
    return this.#http.request(
      "POST",
      ["nodes", node, "storage", storage, "upload"],
      schemas.upidSchema,
      {
        upload: () => multipartUpload([["content", "iso"]], iso),
        timeoutMs: this.#http.uploadTimeoutMs,
      },
    );
  }

  downloadUrl(request: DownloadUrlRequest): Promise<Upid> {
    const form = defined({
      url: request.url,
      filename: request.filename,
      content: request.content,
      checksum: request.checksum?.value,
      "checksum-algorithm": request.checksum?.algorithm,
    });
    return this.#http.request(
      "POST",
      ["nodes", request.node, "storage", request.storage, "download-url"],
      schemas.upidSchema,
      { form },
    );
  }

  storageContent(
    node: string,
    storage: string,
    content?: string,
  ): Promise<readonly StorageVolume[]> {
    return this.#http.request(
      "GET",
      ["nodes", node, "storage", storage, "content"],
      schemas.storageContentSchema,
      { query: defined({ content }) },
    );
  }

  deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null> {
    return this.#http.request(
      "DELETE",
      ["nodes", node, "storage", storage, "content", volid],
      schemas.optionalUpidSchema,
    );
  }

  taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    return this.#http.request(
      "GET",
      ["nodes", node, "tasks", upid, "status"],
      schemas.taskStatusSchema,
    );
  }

  nodeTasks(node: string, query: NodeTaskQuery): Promise<readonly NodeTask[]> {
    return this.#http.request("GET", ["nodes", node, "tasks"], schemas.nodeTasksSchema, {
      query: defined({ ...query }),
    });
  }

  taskLog(
    node: string,
    upid: Upid,
    start?: number,
    limit?: number,
  ): Promise<readonly TaskLogLine[]> {
    return this.#http.request("GET", ["nodes", node, "tasks", upid, "log"], schemas.taskLogSchema, {
      query: defined({ start, limit }),
    });
  }
}

/** A config change as PVE's form: the keys set, `delete` as its comma list, the digest. */
function configForm(update: ConfigUpdate) {
  return defined({
    ...update.set,
    delete: update.delete && update.delete.length > 0 ? update.delete.join(",") : undefined,
    digest: update.digest,
  });
}
