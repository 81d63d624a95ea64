/**
 * A `targetstorage` value (PVE's storage-pair-list, read by pve-common's parse_idmap): `dst`
 * sends every volume to `dst`, `src:dst,…` maps storages one by one (unlisted ones keep their
 * storage), `1` keeps every storage.
 */
export interface StorageMap {
  readonly entries: ReadonlyMap<string, string>;
  readonly fallback?: string;
}

const STORAGE_ID = /^[a-z][a-z0-9\-_.]*[a-z0-9]$/i;

function invalidId(entry: string, ids: readonly string[]): string | undefined {
  const bad = ids.find((id) => !STORAGE_ID.test(id));
  return bad === undefined
    ? undefined
    : `entry '${entry}' contains invalid ID - storage ID '${bad}' contains illegal characters`;
}

/** The map, or parse_idmap's text for a list it refuses. */
export function parseStorageMap(value: string): StorageMap | string {
  const entries = new Map<string, string>();
  let fallback: string | undefined;
  let identity = false;
  for (const entry of value.split(/[,;\s\0]+/).filter((part) => part !== "")) {
    const pair = /^([^:]+):([^:]+)$/.exec(entry);
    if (entry === "1") {
      identity = true;
    } else if (pair !== null) {
      const [, source = "", target = ""] = pair;
      const invalid = invalidId(entry, [source, target]);
      if (invalid !== undefined) return invalid;
      if (entries.has(source)) return `duplicate mapping for source '${source}'`;
      entries.set(source, target);
    } else {
      const invalid = invalidId(entry, [entry]);
      if (invalid !== undefined) return invalid;
      if (fallback !== undefined) return "default target ID can only be provided once";
      fallback = entry;
    }
  }
  if (identity && (fallback !== undefined || entries.size > 0))
    return "identity mapping cannot be combined with other mappings";
  return fallback === undefined ? { entries } : { entries, fallback };
}

/** The storage a volume of `storage` goes to. */
export function mapStorage(map: StorageMap | undefined, storage: string): string {
  return map?.entries.get(storage) ?? map?.fallback ?? storage;
}
