/** The seam's storage calls: a node's storages, their volumes, ISO uploads and URL downloads. */
import type { Upid } from "./tasks.js";

export interface NodeStorage {
  readonly storage: string;
  readonly type: string;
  /** Content types the storage accepts, e.g. `["images", "iso"]`. */
  readonly content: readonly string[];
  readonly shared: boolean;
  readonly active: boolean;
  readonly enabled: boolean;
}

export interface StorageVolume {
  /** `local:iso/pp-0123abcd.iso` */
  readonly volid: string;
  readonly content: string;
  readonly format?: string | undefined;
  readonly size?: number | undefined;
}

export interface IsoUpload {
  readonly filename: string;
  readonly bytes: Uint8Array;
  /** Zero bytes the file ends with after `bytes` (an ISO's padding), sent without being held. */
  readonly zeroTail?: number | undefined;
}

/** `POST /nodes/{node}/storage/{storage}/download-url`: PVE fetches `url` itself, in a task. */
export interface DownloadUrlRequest {
  readonly node: string;
  /** A file-based storage with `content` among its content types. */
  readonly storage: string;
  readonly url: string;
  /** The stored name; its extension must fit `content` (`import`: `.qcow2|.raw|.vmdk|.ova`). */
  readonly filename: string;
  readonly content: "import" | "iso";
  /** PVE verifies it after the download and fails the task on a mismatch. */
  readonly checksum?:
    { readonly algorithm: "sha256" | "sha512"; readonly value: string } | undefined;
}

export interface StorageCalls {
  nodeStorages(node: string): Promise<readonly NodeStorage[]>;
  uploadIso(node: string, storage: string, iso: IsoUpload): Promise<Upid>;
  /** Downloaded images are listed and deleted like any volume, with content `import`. */
  downloadUrl(request: DownloadUrlRequest): Promise<Upid>;
  storageContent(
    node: string,
    storage: string,
    content?: string,
  ): Promise<readonly StorageVolume[]>;
  deleteVolume(node: string, storage: string, volid: string): Promise<Upid | null>;
}
