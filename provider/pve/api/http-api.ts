import { PveHttpClient, type HttpApiOptions } from "./http-client.js";
import { defined } from "./http/form.js";
import { HttpPartCalls } from "./http/part-calls.js";
import type {
  ClusterNode,
  ClusterVm,
  CloneRequest,
  ConfigUpdate,
  CreateVmRequest,
  GuestInterface,
  MigrateDisks,
  MoveTarget,
  NodeVm,
  Permissions,
  PoolMembership,
  ProxmoxApi,
  ProxmoxVersion,
  PveParams,
  Upid,
  VmConfig,
  VmPendingConfig,
  VmStatus,
} from "./proxmox-api.js";
import * as schemas from "./responses.js";

export type { HttpApiOptions } from "./http-client.js";

/**
 * The real {@link ProxmoxApi}: each call one request of {@link PveHttpClient} (PVE's JSON API
 * over undici, authenticated, parsed and classified there). The cluster and VM calls are here;
 * the other areas' calls live in `http/`, one part per area of the seam ({@link HttpPartCalls}).
 */
export class HttpProxmoxApi extends HttpPartCalls implements ProxmoxApi {
  readonly #http: PveHttpClient;

  constructor(options: HttpApiOptions | PveHttpClient) {
    const http = options instanceof PveHttpClient ? options : new PveHttpClient(options);
    super(http);
    this.#http = http;
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
}

/** A config change as PVE's form: the keys set, `delete` as its comma list, the digest. */
function configForm(update: ConfigUpdate) {
  return defined({
    ...update.set,
    delete: update.delete && update.delete.length > 0 ? update.delete.join(",") : undefined,
    digest: update.digest,
  });
}
