import type { PveHttpClient } from "../http-client.js";
import type {
  HostResourceCalls,
  MappingType,
  NodeBridge,
  ResourceMapping,
} from "../seam/host-resources.js";
import type { SnapshotCalls, SnapshotRequest, VmSnapshots } from "../seam/snapshots.js";
import type {
  DownloadUrlRequest,
  IsoUpload,
  NodeStorage,
  StorageCalls,
  StorageVolume,
} from "../seam/storage.js";
import type {
  NodeTask,
  NodeTaskQuery,
  TaskCalls,
  TaskLogLine,
  TaskStatus,
  Upid,
} from "../seam/tasks.js";
import { HttpHostResourceCalls } from "./host-resources.js";
import { HttpSnapshotCalls } from "./snapshots.js";
import { HttpStorageCalls } from "./storage.js";
import { HttpTaskCalls } from "./tasks.js";

/**
 * The seam's parts over HTTP, composed: one object per area, each call handed to its part.
 * {@link HttpProxmoxApi} extends this with the cluster and VM calls, so the real client is still
 * one object with every method on its prototype (the decorators' proxies and `util.inspect`
 * see what they saw before the split; the parts stay in private fields).
 */
export abstract class HttpPartCalls
  implements HostResourceCalls, SnapshotCalls, StorageCalls, TaskCalls
{
  readonly #hostResources: HttpHostResourceCalls;
  readonly #snapshots: HttpSnapshotCalls;
  readonly #storage: HttpStorageCalls;
  readonly #tasks: HttpTaskCalls;

  constructor(http: PveHttpClient) {
    this.#hostResources = new HttpHostResourceCalls(http);
    this.#snapshots = new HttpSnapshotCalls(http);
    this.#storage = new HttpStorageCalls(http);
    this.#tasks = new HttpTaskCalls(http);
  }

  nodeBridges(node: string): Promise<readonly NodeBridge[]> {
    return this.#hostResources.nodeBridges(node);
  }

  resourceMapping(type: MappingType, id: string): Promise<ResourceMapping> {
    return this.#hostResources.resourceMapping(type, id);
  }

  vmSnapshots(node: string, vmid: number): Promise<VmSnapshots> {
    return this.#snapshots.vmSnapshots(node, vmid);
  }

  createSnapshot(node: string, vmid: number, request: SnapshotRequest): Promise<Upid> {
    return this.#snapshots.createSnapshot(node, vmid, request);
  }

  updateSnapshot(node: string, vmid: number, name: string, description: string): Promise<void> {
    return this.#snapshots.updateSnapshot(node, vmid, name, description);
  }

  rollbackSnapshot(node: string, vmid: number, name: string, start: boolean): Promise<Upid> {
    return this.#snapshots.rollbackSnapshot(node, vmid, name, start);
  }

  deleteSnapshot(node: string, vmid: number, name: string): Promise<Upid> {
    return this.#snapshots.deleteSnapshot(node, vmid, name);
  }

  nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    return this.#storage.nodeStorages(node);
  }

  uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid> {
    return this.#storage.uploadIso(node, storage, iso);
  }

  downloadUrl(request: DownloadUrlRequest): Promise<Upid> {
    return this.#storage.downloadUrl(request);
  }

  storageContent(
    node: string,
    storage: string,
    content?: string,
  ): Promise<readonly StorageVolume[]> {
    return this.#storage.storageContent(node, storage, content);
  }

  deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null> {
    return this.#storage.deleteVolume(node, storage, volid);
  }

  taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    return this.#tasks.taskStatus(node, upid);
  }

  nodeTasks(node: string, query: NodeTaskQuery): Promise<readonly NodeTask[]> {
    return this.#tasks.nodeTasks(node, query);
  }

  taskLog(
    node: string,
    upid: Upid,
    start?: number,
    limit?: number,
  ): Promise<readonly TaskLogLine[]> {
    return this.#tasks.taskLog(node, upid, start, limit);
  }
}
