import type { PveHttpClient } from "../http-client.js";
import { multipartUpload } from "../multipart.js";
import * as schemas from "../responses.js";
import type {
  DownloadUrlRequest,
  IsoUpload,
  NodeStorage,
  StorageCalls,
  StorageVolume,
} from "../seam/storage.js";
import type { Upid } from "../seam/tasks.js";
import { defined } from "./form.js";

/** {@link StorageCalls} over PVE's HTTP API; part of {@link HttpProxmoxApi}. */
export class HttpStorageCalls implements StorageCalls {
  readonly #http: PveHttpClient;

  constructor(http: PveHttpClient) {
    this.#http = http;
  }

  nodeStorages(node: string): Promise<readonly NodeStorage[]> {
    return this.#http.request("GET", ["nodes", node, "storage"], schemas.nodeStoragesSchema);
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
}
