/**
 * The firmware and machine inputs as PVE writes them: the EFI disk (`efidisk0`), the TPM
 * (`tpmstate0`), the machine type, the display, the boot order and the guest agent. Each value is
 * formatted the way PVE takes it and parsed back with PVE's defaults filled in, so a value PVE
 * stores in its own spelling (`type=q35`, a volume name instead of `storage:1`, `size=528K`
 * appended) compares equal to what the program asked for.
 */

/** A PVE property string, `first,key=value,…`, as its keys; the bare first value under `firstKey`. */
export function propertyString(
  value: string | undefined,
  firstKey: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value) return out;
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) out[firstKey] = part;
    else out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

/** A config value as PVE's text, whatever JSON type the API answered with. */
export const text = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : String(value);

/** The storage of a volume (`local-lvm:vm-100-disk-1`) or of an allocation (`local-lvm:1`). */
const storageOf = (file: string | undefined) => file?.split(":")[0] || undefined;

/** PVE's boolean flags read `1`, `on`, `yes` or `true`. */
const flag = (value: string | undefined) => value !== undefined && /^(1|on|yes|true)$/i.test(value);

export interface EfiDisk {
  readonly storage: string;
  readonly preEnrolledKeys: boolean;
  readonly type: "2m" | "4m";
}

/** A new EFI vars disk; PVE ignores the size in `storage:1` and copies the firmware's vars. */
export function formatEfiDisk(disk: EfiDisk): string {
  return `${disk.storage}:1,efitype=${disk.type},pre-enrolled-keys=${disk.preEnrolledKeys ? 1 : 0}`;
}

/** `local-lvm:vm-100-disk-1,efitype=4m,size=4M` → its storage and options (PVE's defaults: 2m, no keys). */
export function parseEfiDisk(value: string | undefined): EfiDisk | undefined {
  const parts = propertyString(value, "file");
  const storage = storageOf(parts["file"]);
  if (storage === undefined) return undefined;
  return {
    storage,
    preEnrolledKeys: flag(parts["pre-enrolled-keys"]),
    type: parts["efitype"] === "4m" ? "4m" : "2m",
  };
}

export interface Tpm {
  readonly storage: string;
  readonly version: "v1.2" | "v2.0";
}

export function formatTpm(tpm: Tpm): string {
  return `${tpm.storage}:1,version=${tpm.version}`;
}

/** `local-lvm:vm-100-disk-2,size=4M,version=v2.0` → its storage and version (PVE's default v1.2). */
export function parseTpm(value: string | undefined): Tpm | undefined {
  const parts = propertyString(value, "file");
  const storage = storageOf(parts["file"]);
  if (storage === undefined) return undefined;
  return { storage, version: parts["version"] === "v2.0" ? "v2.0" : "v1.2" };
}

/** `type=q35,viommu=intel` or `pc-q35-8.1` → the machine type; absent means PVE's `pc` (i440fx). */
export function parseMachine(value: string | undefined): string {
  return propertyString(value, "type")["type"] ?? "pc";
}

/** `qxl,memory=32` or `type=serial0` → the display type; absent means PVE's `std`. */
export function parseVga(value: string | undefined): string {
  return propertyString(value, "type")["type"] ?? "std";
}

/** `order=scsi0;net0` → the devices in boot order; the legacy `cdn` letters name no device. */
export function parseBootOrder(value: string | undefined): string[] {
  const order = propertyString(value, "legacy")["order"];
  return order ? order.split(";").filter(Boolean) : [];
}

export function formatBootOrder(devices: readonly string[]): string {
  return `order=${devices.join(";")}`;
}

export interface AgentOptions {
  readonly fstrimClonedDisks?: boolean | undefined;
  readonly type?: "virtio" | "isa" | undefined;
}

/**
 * The agent always enabled (the provider reads the VM's addresses through it), with the options
 * the program sets; `1` alone when it sets none, as the provider has always written it.
 */
export function formatAgent(options: AgentOptions): string {
  const set = [
    ...(options.fstrimClonedDisks === undefined
      ? []
      : [`fstrim_cloned_disks=${options.fstrimClonedDisks ? 1 : 0}`]),
    ...(options.type === undefined ? [] : [`type=${options.type}`]),
  ];
  return set.length === 0 ? "1" : ["enabled=1", ...set].join(",");
}

/** `enabled=1,fstrim_cloned_disks=1` or `1` → whether it is on and its options, PVE's defaults filled in. */
export function parseAgent(value: string | undefined): {
  readonly enabled: boolean;
  readonly fstrimClonedDisks: boolean;
  readonly type: "virtio" | "isa";
} {
  const parts = propertyString(value, "enabled");
  return {
    enabled: flag(parts["enabled"]),
    fstrimClonedDisks: flag(parts["fstrim_cloned_disks"]),
    type: parts["type"] === "isa" ? "isa" : "virtio",
  };
}

/**
 * Whether PVE's agent value says what the formatted `wanted` says: on, and each option written
 * there with the same value (an option PVE leaves out has its default: off, `virtio`).
 */
export function sameAgent(current: string | undefined, wanted: string): boolean {
  const now = propertyString(current, "enabled");
  return Object.entries(propertyString(wanted, "enabled")).every(([key, value]) =>
    key === "type" ? (now["type"] ?? "virtio") === value : flag(now[key]) === flag(value),
  );
}
