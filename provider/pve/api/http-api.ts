import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { ConnectionConfig } from "../config.js";
import { PermanentError } from "../errors.js";
import type { Secret } from "../secret.js";
import { classify } from "../classify.js";
import { sharedDispatcher, type RegistryLogger } from "./dispatcher-registry.js";
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
  MoveTarget,
  NodeStorage,
  NodeVm,
  NodeTask,
  NodeTaskQuery,
  Permissions,
  PoolMembership,
  ProxmoxApi,
  ProxmoxVersion,
  PveParams,
  StorageVolume,
  TaskLogLine,
  TaskStatus,
  Upid,
  VmConfig,
  VmPendingConfig,
  VmStatus,
} from "./proxmox-api.js";
import * as schemas from "./responses.js";
import { classifyTransportError } from "./transport-error.js";

/**
 * The real {@link ProxmoxApi}: PVE's JSON API over undici. One request per call and no retries
 * (pve/retry.ts decides after classification); every answer goes through a zod schema and every
 * failure through `classify` / `classifyTransportError`.
 */

export interface HttpApiOptions {
  readonly connection: ConnectionConfig;
  /** A dispatcher to use instead of the shared pool (tests pass undici's MockAgent). */
  readonly dispatcher?: Dispatcher | undefined;
  /** Per-request budget for ordinary calls. pveproxy itself gives up on a proxied call at 30 s. */
  readonly timeoutMs?: number | undefined;
  /** Per-request budget for an ISO upload. */
  readonly uploadTimeoutMs?: number | undefined;
  /** Cancels every request of this instance (see {@link HttpProxmoxApi.withSignal}). */
  readonly signal?: AbortSignal | undefined;
  /** Receives the insecure-TLS warning. */
  readonly logger?: RegistryLogger | undefined;
}

interface RequestSpec {
  readonly query?: PveParams | undefined;
  readonly form?: PveParams | undefined;
  readonly upload?: { body: Readable; contentType: string; contentLength: number } | undefined;
  readonly timeoutMs?: number | undefined;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** PVE's form and query encoding: booleans are sent as 1/0, the form its API schema documents. */
function encodeParams(params: PveParams): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    out.append(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  return out.toString();
}

/** Drops undefined values so optional inputs are simply not sent. */
function defined(params: Record<string, string | number | boolean | undefined>): PveParams {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}

export class HttpProxmoxApi implements ProxmoxApi {
  readonly #connection: ConnectionConfig;
  readonly #secret: Secret;
  readonly #dispatcher: Dispatcher;
  readonly #options: HttpApiOptions;
  readonly #timeoutMs: number;

  constructor(options: HttpApiOptions) {
    this.#options = options;
    this.#connection = options.connection;
    this.#secret = options.connection.secret;
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#dispatcher =
      options.dispatcher ??
      sharedDispatcher(
        {
          origin: options.connection.origin,
          caCert: options.connection.caCert,
          insecure: options.connection.insecure,
          connections: options.connection.maxConnections,
        },
        options.logger,
      );
  }

  /** A view of this client whose requests are cancelled by `signal`; it shares the pool. */
  withSignal(signal: AbortSignal | undefined): HttpProxmoxApi {
    return new HttpProxmoxApi({ ...this.#options, dispatcher: this.#dispatcher, signal });
  }

  /** Never prints the secret: `util.inspect(api)` shows only the origin and token id. */
  toJSON(): { origin: string; tokenId: string } {
    return { origin: this.#connection.origin, tokenId: this.#connection.tokenId };
  }

  async #request<S extends z.ZodType>(
    method: Method,
    segments: readonly (string | number)[],
    schema: S,
    spec: RequestSpec = {},
  ): Promise<z.output<S>> {
    const path = `/${segments.join("/")}`;
    const encoded = `/api2/json/${segments.map((s) => encodeURIComponent(String(s))).join("/")}`;
    const query =
      spec.query && Object.keys(spec.query).length > 0 ? `?${encodeParams(spec.query)}` : "";
    const timeoutMs = spec.timeoutMs ?? this.#timeoutMs;
    const external = this.#options.signal;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = external ? AbortSignal.any([external, timeout]) : timeout;
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `PVEAPIToken=${this.#connection.tokenId}=${this.#secret.reveal()}`,
    };
    let body: string | Readable | undefined;
    if (spec.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = encodeParams(spec.form);
    } else if (spec.upload !== undefined) {
      headers["content-type"] = spec.upload.contentType;
      headers["content-length"] = String(spec.upload.contentLength);
      body = spec.upload.body;
    }

    let status: number;
    let statusText: string;
    let text: string;
    try {
      if (external?.aborted) throw external.reason;
      const response = await this.#dispatcher.request({
        origin: this.#connection.origin,
        method,
        path: `${encoded}${query}`,
        headers,
        body: body ?? null,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      statusText = response.statusText;
      text = await response.body.text();
    } catch (error) {
      throw classifyTransportError({
        method,
        path,
        error,
        aborted: external?.aborted === true,
        timedOut: timeout.aborted,
        timeoutMs,
        origin: this.#connection.origin,
        secret: this.#secret,
      });
    }

    let json: unknown = undefined;
    if (text.trim() !== "") {
      try {
        json = JSON.parse(text);
      } catch {
        json = status >= 200 && status < 300 ? undefined : this.#secret.scrub(text);
        if (status >= 200 && status < 300) {
          throw new PermanentError(
            "BAD_RESPONSE",
            `${method} ${path}: PVE answered ${status} with a body that is not JSON. Is the ` +
              `endpoint a PVE API (https://<host>:8006)?`,
            { method, path, status },
          );
        }
      }
    }
    if (status >= 200 && status < 300) return schemas.parseData(schema, json, method, path);
    // A server could echo our Authorization header in its reason or body: scrub before use.
    const scrubbed =
      json === undefined
        ? undefined
        : (JSON.parse(this.#secret.scrub(JSON.stringify(json))) as unknown);
    throw classify(
      method,
      path,
      status,
      this.#secret.scrub(statusText),
      scrubbed,
      this.#connection.tokenId,
    );
  }

  version(): Promise<ProxmoxVersion> {
    return this.#request("GET", ["version"], schemas.versionSchema);
  }

  permissions(): Promise<Permissions> {
    return this.#request("GET", ["access", "permissions"], schemas.permissionsSchema);
  }

  clusterVms(): Promise<readonly ClusterVm[]> {
    return this.#request("GET", ["cluster", "resources"], schemas.clusterVmsSchema, {
      query: { type: "vm" },
    });
  }

  nextVmid(): Promise<number> {
    return this.#request("GET", ["cluster", "nextid"], schemas.nextVmidSchema);
  }

  nodes(): Promise<readonly ClusterNode[]> {
    return this.#request("GET", ["nodes"], schemas.nodesSchema);
  }

  nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    return this.#request("GET", ["nodes", node, "storage"], schemas.nodeStoragesSchema);
  }

  async vmConfig(node: string, vmid: number): Promise<VmConfig> {
    return this.#request("GET", ["nodes", node, "qemu", vmid, "config"], schemas.vmConfigSchema);
  }

  vmPending(node: string, vmid: number): Promise<VmPendingConfig> {
    return this.#request("GET", ["nodes", node, "qemu", vmid, "pending"], schemas.vmPendingSchema);
  }

  updateVmConfig(node: string, vmid: number, update: ConfigUpdate): Promise<Upid | null> {
    return this.#request(
      "POST",
      ["nodes", node, "qemu", vmid, "config"],
      schemas.optionalUpidSchema,
      { form: configForm(update) },
    );
  }

  updateVmConfigSync(node: string, vmid: number, update: ConfigUpdate): Promise<void> {
    return this.#request("PUT", ["nodes", node, "qemu", vmid, "config"], schemas.nothingSchema, {
      form: configForm(update),
    });
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
    return this.#request(
      "POST",
      ["nodes", request.node, "qemu", request.vmid, "clone"],
      schemas.upidSchema,
      { form },
    );
  }

  createVm(request: CreateVmRequest): Promise<Upid> {
    return this.#request("POST", ["nodes", request.node, "qemu"], schemas.upidSchema, {
      form: { ...request.config, vmid: request.vmid },
    });
  }

  convertToTemplate(node: string, vmid: number): Promise<Upid | null> {
    return this.#request(
      "POST",
      ["nodes", node, "qemu", vmid, "template"],
      schemas.optionalUpidSchema,
      { form: {} },
    );
  }

  vmStatus(node: string, vmid: number): Promise<VmStatus> {
    return this.#request(
      "GET",
      ["nodes", node, "qemu", vmid, "status", "current"],
      schemas.vmStatusSchema,
    );
  }

  nodeVms(node: string): Promise<readonly NodeVm[]> {
    return this.#request("GET", ["nodes", node, "qemu"], schemas.nodeVmsSchema, {
      query: { full: true },
    });
  }

  #power(node: string, vmid: number, action: string, form: PveParams = {}): Promise<Upid> {
    return this.#request(
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
    return this.#request("POST", ["nodes", node, "qemu", vmid, "migrate"], schemas.upidSchema, {
      form,
    });
  }

  updatePoolMembership(change: PoolMembership): Promise<void> {
    // The path form is the one 7.4, 8.x and 9.x all serve (docs/design.md, "Pool membership").
    return this.#request("PUT", ["pools", change.poolid], schemas.nothingSchema, {
      form: defined({ vms: change.vmid, delete: change.remove ? true : undefined }),
    });
  }

  destroyVm(node: string, vmid: number): Promise<Upid> {
    // PVE's HTTP server refuses a body on DELETE ("Unexpected content"): parameters go in the query.
    return this.#request("DELETE", ["nodes", node, "qemu", vmid], schemas.upidSchema, {
      query: { purge: true, "destroy-unreferenced-disks": true },
    });
  }

  resizeDisk(node: string, vmid: number, disk: string, size: string): Promise<Upid | null> {
    return this.#request(
      "PUT",
      ["nodes", node, "qemu", vmid, "resize"],
      schemas.optionalUpidSchema,
      {
        form: { disk, size },
      },
    );
  }

  moveDisk(node: string, vmid: number, disk: string, target: MoveTarget): Promise<Upid> {
    return this.#request("POST", ["nodes", node, "qemu", vmid, "move_disk"], schemas.upidSchema, {
      form: defined({ disk, storage: target.storage, format: target.format, delete: true }),
    });
  }

  agentInterfaces(node: string, vmid: number): Promise<readonly GuestInterface[]> {
    return this.#request(
      "GET",
      ["nodes", node, "qemu", vmid, "agent", "network-get-interfaces"],
      schemas.agentInterfacesSchema,
    );
  }

  uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid> {
    return this.#request(
      "POST",
      ["nodes", node, "storage", storage, "upload"],
      schemas.upidSchema,
      {
        upload: multipartUpload([["content", "iso"]], iso),
        timeoutMs: this.#options.uploadTimeoutMs ?? 600_000,
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
    return this.#request(
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
    return this.#request(
      "GET",
      ["nodes", node, "storage", storage, "content"],
      schemas.storageContentSchema,
      { query: defined({ content }) },
    );
  }

  deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null> {
    return this.#request(
      "DELETE",
      ["nodes", node, "storage", storage, "content", volid],
      schemas.optionalUpidSchema,
    );
  }

  taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    return this.#request("GET", ["nodes", node, "tasks", upid, "status"], schemas.taskStatusSchema);
  }

  nodeTasks(node: string, query: NodeTaskQuery): Promise<readonly NodeTask[]> {
    return this.#request("GET", ["nodes", node, "tasks"], schemas.nodeTasksSchema, {
      query: defined({ source: query.source, since: query.since, limit: query.limit }),
    });
  }

  taskLog(
    node: string,
    upid: Upid,
    start?: number,
    limit?: number,
  ): Promise<readonly TaskLogLine[]> {
    return this.#request("GET", ["nodes", node, "tasks", upid, "log"], schemas.taskLogSchema, {
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
