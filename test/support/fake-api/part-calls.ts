/**
 * The fake's calls of the seam's parts (bridges and mappings, snapshots, storage, tasks), over
 * the shared state; the cluster and VM calls are `../fake-api.ts`'s.
 */
import type {
  DownloadUrlRequest,
  IsoUpload,
  MappingType,
  NodeBridge,
  NodeStorage,
  NodeTask,
  ResourceMapping,
  SnapshotRequest,
  StorageVolume,
  TaskLogLine,
  TaskStatus,
  Upid,
  VmSnapshots,
} from "../../../provider/pve/api/proxmox-api";
import { PermanentError } from "../../../provider/pve/errors";
import { FakeApiState } from "./state";

export abstract class FakePartCalls extends FakeApiState {
  async nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    this.enter("nodeStorages", [node]);
    return this.storages;
  }
  async nodeBridges(node: string): Promise<readonly NodeBridge[]> {
    this.enter("nodeBridges", [node]);
    return this.bridges.map((iface) => ({ iface, type: "bridge" }));
  }
  async resourceMapping(type: MappingType, id: string): Promise<ResourceMapping> {
    this.enter("resourceMapping", [type, id]);
    const mapping = this.mappings.get(`${type}/${id}`);
    if (mapping === undefined)
      throw new PermanentError("NOT_FOUND", `mapping '${id}' not found`, { status: 500 });
    return mapping;
  }
  async vmSnapshots(node: string, vmid: number): Promise<VmSnapshots> {
    this.enter("vmSnapshots", [node, vmid]);
    const snapshots = this.vm(node, vmid).snapshots ?? [];
    return { snapshots, parent: snapshots.at(-1)?.name };
  }
  async createSnapshot(node: string, vmid: number, request: SnapshotRequest): Promise<Upid> {
    this.enter("createSnapshot", [node, vmid, request]);
    const vm = this.vm(node, vmid);
    const upid = this.task(node, "qmsnapshot", vmid);
    const { name, description = "", vmstate = false } = request;
    if (this.taskRecords.get(upid)?.exitstatus === "OK")
      (vm.snapshots ??= []).push({
        name,
        description,
        vmstate,
        parent: vm.snapshots?.at(-1)?.name,
      });
    return upid;
  }
  async updateSnapshot(node: string, vmid: number, name: string, description: string) {
    this.enter("updateSnapshot", [node, vmid, name, description]);
    const vm = this.vm(node, vmid);
    vm.snapshots = vm.snapshots?.map((s) => (s.name === name ? { ...s, description } : s));
  }
  async rollbackSnapshot(node: string, vmid: number, name: string, start: boolean) {
    this.enter("rollbackSnapshot", [node, vmid, name, start]);
    this.vm(node, vmid);
    return this.task(node, "qmrollback", vmid);
  }
  async deleteSnapshot(node: string, vmid: number, name: string): Promise<Upid> {
    this.enter("deleteSnapshot", [node, vmid, name]);
    const vm = this.vm(node, vmid);
    const upid = this.task(node, "qmdelsnapshot", vmid);
    if (this.taskRecords.get(upid)?.exitstatus === "OK")
      vm.snapshots = vm.snapshots?.filter((snapshot) => snapshot.name !== name);
    return upid;
  }
  async uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid> {
    this.enter("uploadIso", [node, storage, iso.filename]);
    this.volumeSet(node, storage).add(`${storage}:iso/${iso.filename}`);
    return this.task(node, "imgcopy", "");
  }
  async downloadUrl(request: DownloadUrlRequest): Promise<Upid> {
    this.enter("downloadUrl", [request]);
    this.volumeSet(request.node, request.storage).add(
      `${request.storage}:${request.content}/${request.filename}`,
    );
    return this.task(request.node, "download", request.filename);
  }
  async storageContent(
    node: string,
    storage: string,
    content?: string,
  ): Promise<readonly StorageVolume[]> {
    this.enter("storageContent", [node, storage]);
    // The content is the volume name's directory, as PVE's parse_volname reads it.
    return [...this.volumeSet(node, storage)]
      .map((volid) => ({ volid, content: /:([a-z]+)\//.exec(volid)?.[1] ?? "images" }))
      .filter((volume) => content === undefined || volume.content === content);
  }
  async deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null> {
    this.enter("deleteVolume", [node, storage, volid]);
    this.volumeSet(node, storage).delete(volid);
    return this.task(node, "imgdel", storage);
  }
  async taskStatus(node: string, upid: Upid): Promise<TaskStatus> {
    this.enter("taskStatus", [node, upid]);
    const task = this.taskRecords.get(upid);
    return { upid, node, status: "stopped", exitstatus: task?.exitstatus ?? "OK" };
  }
  /** Every fake task ends at once, so the node's list shows it archived with its exit status. */
  async nodeTasks(node: string): Promise<readonly NodeTask[]> {
    this.enter("nodeTasks", [node]);
    return [...this.taskRecords]
      .filter(([, task]) => task.node === node)
      .map(([upid, task]) => ({ upid, status: task.exitstatus }));
  }
  async taskLog(): Promise<readonly TaskLogLine[]> {
    return [{ n: 1, t: "TASK OK" }];
  }
}
