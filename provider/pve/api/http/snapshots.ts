import type { PveHttpClient } from "../http-client.js";
import * as schemas from "../responses.js";
import type { SnapshotCalls, SnapshotRequest, VmSnapshots } from "../seam/snapshots.js";
import type { Upid } from "../seam/tasks.js";
import { defined } from "./form.js";

/** {@link SnapshotCalls} over PVE's HTTP API; part of {@link HttpProxmoxApi}. */
export class HttpSnapshotCalls implements SnapshotCalls {
  readonly #http: PveHttpClient;

  constructor(http: PveHttpClient) {
    this.#http = http;
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
}
