import type { Cluster } from "./cluster.js";

/**
 * Allocates a new `vm-<vmid>-disk-<n>` volume on a storage (the first free n, as PVE's
 * find_free_diskname picks it) and returns its volume id.
 */
export function allocateDisk(
  cluster: Cluster,
  node: string,
  storage: string,
  vmid: number,
  bytes: number,
  format = "raw",
): string {
  let n = 0;
  while (cluster.volume(node, `${storage}:vm-${vmid}-disk-${n}`) !== undefined) n += 1;
  const volid = `${storage}:vm-${vmid}-disk-${n}`;
  cluster.putVolume(node, {
    volid,
    storage,
    content: "images",
    format,
    size: bytes,
    ctime: Math.floor(Date.now() / 1000),
    vmid,
  });
  return volid;
}

/**
 * Why `storage` cannot take VM disks on `node`, in storage_check_enabled's and the migrate
 * API's words, or undefined when it can.
 */
export function imageStorageProblem(
  cluster: Cluster,
  node: string,
  storage: string,
): string | undefined {
  if (!cluster.storages.some((s) => s.storage === storage))
    return `storage '${storage}' does not exist`;
  const scfg = cluster.storageOn(node, storage);
  if (scfg === undefined) return `storage '${storage}' is not available on node '${node}'`;
  return scfg.content.includes("images")
    ? undefined
    : `storage '${storage}' does not support vm images`;
}
