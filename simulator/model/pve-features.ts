/**
 * What a cloud-image template needs that depends on the PVE release, keyed by a version string
 * (`"7.4"`, `"8.4"`, `"9.1"`…): the routes pass their version profile's release, so every rule
 * below follows the release the simulator answers as.
 */
export const DEFAULT_PVE_VERSION = "8.4";

export interface TemplateFeatures {
  /** Content types `upload` and `download-url` accept (pve-storage 8.2 added `import`). */
  readonly uploadContents: readonly string[];
  /** File extensions `import` content takes: OVA only until pve-storage 8.3.6 (PVE 8.4). */
  readonly importExtensions: readonly string[];
  /** `Sys.AccessNetwork` on `/nodes/{node}` may replace `Sys.Audit`+`Sys.Modify` on `/` (8.1). */
  readonly accessNetworkPrivilege: boolean;
}

/** `"8.4"` / `"8.4.1"` → [8, 4]; an unreadable string counts as the default release. */
function majorMinor(version: string): [number, number] {
  const match = /^(\d+)\.(\d+)/.exec(version) ?? /^(\d+)\.(\d+)/.exec(DEFAULT_PVE_VERSION);
  return [Number(match?.[1] ?? 0), Number(match?.[2] ?? 0)];
}

function atLeast(version: string, major: number, minor: number): boolean {
  const [a, b] = majorMinor(version);
  return a > major || (a === major && b >= minor);
}

export function templateFeatures(version: string = DEFAULT_PVE_VERSION): TemplateFeatures {
  const hasImport = atLeast(version, 8, 2);
  return {
    uploadContents: hasImport ? ["iso", "vztmpl", "import"] : ["iso", "vztmpl"],
    importExtensions: !hasImport
      ? []
      : atLeast(version, 8, 4)
        ? ["ova", "qcow2", "raw", "vmdk"]
        : ["ova"],
    accessNetworkPrivilege: atLeast(version, 8, 1),
  };
}

/**
 * The `cpuunits` update_vm and create_vm store: PVE::CGroup::clamp_cpu_shares (pve-common) caps
 * it at 10000 on cgroup v2, PVE's hierarchy since 7.0 and its only one from 8.0; the 7.4 profile
 * stands for a host still booted on cgroup v1, which keeps the schema's 1–262144 as given.
 */
export function clampCpuUnits(units: number, version: string = DEFAULT_PVE_VERSION): number {
  return atLeast(version, 8, 0) ? Math.min(units, 10_000) : units;
}
