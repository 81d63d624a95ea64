import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { IpPools } from "../guest/ip-pools.js";
import type { Cluster } from "./cluster.js";
import { MAPPING_TYPES, type Mapping, type MappingType } from "./mappings.js";
import type { TaskRecord, VmRecord, Volume } from "./types.js";

/** A volume as JSON: its bytes, if kept, in base64. */
export interface SavedVolume extends Omit<Volume, "data"> {
  data?: string;
}

/** A saved volume with its bytes back in a Buffer. */
export function restoredVolume(saved: SavedVolume): Volume {
  const { data, ...rest } = saved;
  return data === undefined ? rest : { ...rest, data: Buffer.from(data, "base64") };
}

/** State file format, version 1. Volumes' bytes are base64. */
interface SavedState {
  version: 1;
  vms: VmRecord[];
  volumes: [string, SavedVolume][];
  tasks: TaskRecord[];
  pools: ReturnType<IpPools["toJSON"]>;
  /** Resource mappings by type; absent in files written before mappings were modelled. */
  mappings?: Partial<Record<MappingType, [string, Mapping][]>>;
}

export function saveState(
  file: string,
  cluster: Cluster,
  tasks: ReadonlyMap<string, TaskRecord>,
  pools: IpPools,
): void {
  const state: SavedState = {
    version: 1,
    vms: [...cluster.vms.values()],
    volumes: [...cluster.volumes].map(([key, v]) => {
      const { data, ...rest } = v;
      return [key, data === undefined ? rest : { ...rest, data: data.toString("base64") }];
    }),
    tasks: [...tasks.values()],
    pools: pools.toJSON(),
    mappings: Object.fromEntries(MAPPING_TYPES.map((t) => [t, [...cluster.mappings.of(t)]])),
  };
  // Write-then-rename, so a crash never leaves half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

/** Loads a state file into the model; false when there is none yet. */
export function loadState(
  file: string,
  cluster: Cluster,
  tasks: Map<string, TaskRecord>,
  pools: IpPools,
): boolean {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  const state = JSON.parse(text) as SavedState;
  if (state.version !== 1)
    throw new Error(`unsupported state file version ${String(state.version)}`);
  cluster.vms.clear();
  cluster.volumes.clear();
  for (const vm of state.vms) cluster.addVm(vm);
  for (const [key, saved] of state.volumes) cluster.volumes.set(key, restoredVolume(saved));
  for (const task of state.tasks) tasks.set(task.upid, task);
  pools.restore(state.pools);
  for (const type of MAPPING_TYPES) {
    for (const [id, mapping] of state.mappings?.[type] ?? [])
      cluster.mappings.set(type, id, mapping);
  }
  return true;
}
