import { createHash } from "node:crypto";
import { paramError } from "../http/pve-error.js";
import type { StorageSeed } from "./types.js";

/** Storage types with a directory (`path`): they hold files (ISOs, templates, imports). */
export const FILE_BASED = new Set(["dir", "nfs", "cifs", "cephfs", "glusterfs", "btrfs"]);

/**
 * Storage types whose plugin cannot turn a disk into a base volume or clone one (LVMPlugin's
 * create_base/clone_image die; iSCSI LUNs are not allocated by PVE at all).
 */
const NO_BASE_IMAGES = new Set(["lvm", "iscsi", "iscsidirect"]);

export function supportsLinkedClones(def: StorageSeed | undefined): boolean {
  return def !== undefined && !NO_BASE_IMAGES.has(def.type);
}

/** Where a file of `content` lives below the storage path (PVE's default subdirectories). */
const SUBDIR: Readonly<Record<string, string>> = {
  iso: "template/iso",
  vztmpl: "template/cache",
  import: "import",
};

/** The file's path on the node, for log lines. */
export function volumePath(def: StorageSeed, volname: string): string {
  const base = def.storage === "local" ? "/var/lib/vz" : `/mnt/pve/${def.storage}`;
  const slash = volname.indexOf("/");
  const dir = slash > 0 ? SUBDIR[volname.slice(0, slash)] : undefined;
  return dir === undefined
    ? `${base}/images/${volname}`
    : `${base}/${dir}/${volname.slice(slash + 1)}`;
}

export interface StoredFile {
  /** The normalised file name. */
  readonly filename: string;
  /** `iso/<file>`, `vztmpl/<file>` or `import/<file>`. */
  readonly volname: string;
  /** What the content listing shows as `format`. */
  readonly format: string;
}

/**
 * The name a file of `content` is stored under (normalize_content_filename: directory parts
 * dropped, characters outside `[a-zA-Z0-9_.-]` replaced by `_`), or PVE's parameter error when
 * the extension does not fit the content type.
 */
export function storedFile(
  content: string,
  name: string,
  importExtensions: readonly string[],
): StoredFile {
  const filename = (name.split(/[/\\]/).pop() ?? "").replace(/[^a-zA-Z0-9_.-]/g, "_");
  if (content === "iso") {
    if (!/.\.(iso|img)$/i.test(filename)) throw paramError({ filename: "wrong file extension" });
    return { filename, volname: `iso/${filename}`, format: "iso" };
  }
  if (content === "vztmpl") {
    if (!/.\.tar\.([gx]z|zst)$/i.test(filename))
      throw paramError({ filename: "wrong file extension" });
    return { filename, volname: `vztmpl/${filename}`, format: "tgz" };
  }
  const ext = /.\.([a-z0-9]+)$/.exec(filename)?.[1];
  if (ext === undefined || !importExtensions.includes(ext))
    throw paramError({ filename: "invalid filename or wrong extension" });
  return { filename, volname: `import/${filename}`, format: ext };
}

/** parse_volname's vtype: the content a volume name stands for. */
export function volumeType(volname: string): string {
  const dir = /^(iso|vztmpl|import|snippets|backup)\//.exec(volname)?.[1];
  return dir ?? "images";
}

/** The VMID owning a disk volume (`vm-101-disk-0`, `base-100-disk-0/vm-101-disk-0` → 101). */
export function volumeOwner(volname: string): number | undefined {
  const owner = /^(?:.*\/)?(?:vm|base)-(\d+)-/.exec(volname)?.[1];
  return owner === undefined ? undefined : Number(owner);
}

/** The algorithms upload and download-url verify checksums with. */
export const CHECKSUM_ALGORITHMS = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"];

/** A file's hex digest under each algorithm, kept with the volume so a later download can compare. */
export function fileDigests(data: Buffer): Record<string, string> {
  return Object.fromEntries(
    CHECKSUM_ALGORITHMS.map((alg) => [alg, createHash(alg).update(data).digest("hex")]),
  );
}
