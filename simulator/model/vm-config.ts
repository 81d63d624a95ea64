import { createHash } from "node:crypto";
import { formatSize } from "../http/property-string.js";
import { sizeToBytes } from "./byte-units.js";
import { generateMac, parseNic, printNic } from "./nic-format.js";
import type { VmConfig, VmRecord } from "./types.js";

/** Config keys that are drives (disks or CD-ROMs). */
export const DRIVE_KEY = /^(ide|sata|scsi|virtio|efidisk|tpmstate|unused)\d+$/;
const NET_KEY = /^net\d+$/;

/**
 * Keys PVE applies at once even on a running VM: its "fast-plug" options, the cgroup limits
 * (`cpuunits`, `cpulimit`) and, as this simulator has always answered, cloud-init and `agent`.
 */
const FAST_PLUG =
  /^(name|description|tags|onboot|protection|lock|shares|startup|tablet|hookscript|vmstatestorage|cpuunits|cpulimit|ciuser|cipassword|sshkeys|nameserver|searchdomain|ipconfig\d+|citype|ciupgrade|cicustom|agent)$/;

/** PVE's default `hotplug` value. */
export const DEFAULT_HOTPLUG = "network,disk,usb";

/** The features of a `hotplug` value: `0` none, `1` the default set, else a list. */
export function hotplugFeatures(value: string | number | undefined): Set<string> {
  const text = String(value ?? DEFAULT_HOTPLUG);
  if (text === "0") return new Set();
  return new Set((text === "1" ? DEFAULT_HOTPLUG : text).split(/[,;\s\0]+/));
}

/** Whether a drive value turns a disk into a CD-ROM or back, which a running VM refuses. */
export function mediaTypeChange(
  current: string | number | undefined,
  next: string | number | null,
): boolean {
  if (current === undefined || next === null) return false;
  return isCdrom(String(current)) !== isCdrom(String(next));
}

/** Disk options a running VM takes without re-plugging the disk: its I/O limits. */
const LIVE_DISK_OPTION = /^(bps|iops|mbps)(_rd|_wr)?(_max)?(_length)?$|^(bps|iops)_max_length$/;

/**
 * Whether a running disk that keeps its volume takes new options at once: its I/O limits (QMP
 * `block_set_io_throttle`) yes; cache, discard, ssd, iothread, aio… wait for a restart.
 */
function changesLive(current: string, next: string): boolean {
  const before = parsePropertyString(current);
  const after = parsePropertyString(next);
  const keys = new Set([...Object.keys(before.opts), ...Object.keys(after.opts)]);
  return [...keys].every(
    (key) => key === "size" || before.opts[key] === after.opts[key] || LIVE_DISK_OPTION.test(key),
  );
}

/**
 * Whether a NIC in use takes a new value without being re-plugged (vmconfig_update_net): the same
 * model, MAC, queues and MTU on a bridge. Its host tap is re-plugged for a new bridge, tag,
 * trunks or firewall, its rate set, and `link_down` reaches the guest through QMP `set_link`.
 */
function nicChangesLive(current: string | number | undefined, next: string | number | null) {
  if (current === undefined || next === null) return false;
  const before = parseNic(String(current), true);
  const after = parseNic(String(next), true);
  if (before === undefined || after === undefined) return false;
  return (
    ["model", "macaddr", "queues", "mtu"].every((option) => before[option] === after[option]) &&
    before["bridge"] !== undefined &&
    after["bridge"] !== undefined
  );
}

/**
 * Whether setting (`value`) or deleting (`null`) `key` on a running VM takes effect at once or
 * waits in the pending section for the next start, as qemu-server's vmconfig_hotplug_pending
 * decides from the VM's current config.
 */
export function hotPlugs(key: string, value: string | number | null, config: VmConfig): boolean {
  const features = hotplugFeatures(config["hotplug"]);
  if (FAST_PLUG.test(key)) return true;
  if (key === "vcpus") return features.has("cpu");
  if (key === "memory") return features.has("memory") && Number(config["numa"] ?? 0) === 1;
  if (key === "balloon") {
    // Turning the balloon device on or off is not hot-pluggable; resizing it is.
    const enabled = (v: unknown): boolean => v === undefined || v === null || Number(v) !== 0;
    return enabled(config["balloon"]) === enabled(value ?? undefined);
  }
  if (key === "hotplug") {
    const touchesMemory = (v: unknown): boolean => hotplugFeatures(v as string).has("memory");
    return !touchesMemory(config["hotplug"]) && !touchesMemory(value ?? undefined);
  }
  if (NET_KEY.test(key)) return features.has("network") || nicChangesLive(config[key], value);
  if (/^usb\d+$/.test(key)) return features.has("usb");
  if (/^(efidisk|tpmstate)\d+$/.test(key)) return false;
  if (DRIVE_KEY.test(key) && !/^unused/.test(key)) {
    // A CD-ROM's media changes live on any bus; IDE and SATA disks are never hot-plugged. A
    // switch between disk and CD-ROM is tried live too, and refused (mediaTypeChange).
    const current = config[key];
    if (mediaTypeChange(current, value)) return true;
    const cdrom =
      value !== null &&
      isCdrom(String(value)) &&
      (current === undefined || isCdrom(String(current)));
    if (cdrom) return true;
    // vmconfig_update_disk: a disk in use that keeps its volume takes its I/O limits on any bus
    // and without the `disk` hot-plug feature; only plugging a volume in or out needs both.
    const sameVolume =
      current !== undefined &&
      value !== null &&
      parsePropertyString(String(current)).first === parsePropertyString(String(value)).first;
    if (sameVolume) return changesLive(String(current), String(value));
    return features.has("disk") && !/^(ide|sata)/.test(key);
  }
  return /^unused\d+$/.test(key);
}

/** Splits `virtio=BC:24:11:00:00:01,bridge=vmbr0` or `local:iso/x.iso,media=cdrom`. */
export function parsePropertyString(value: string): {
  first: string;
  opts: Record<string, string>;
} {
  const parts = value.split(",");
  const opts: Record<string, string> = {};
  for (const part of parts) {
    const eq = part.indexOf("=");
    if (eq > 0) opts[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return { first: parts[0] ?? "", opts };
}

/** The volume id of a drive value, or undefined for `none`/`cdrom`/physical drives. */
export function driveVolume(value: string): string | undefined {
  const first = parsePropertyString(value).first;
  if (first === "none" || first === "cdrom" || first.startsWith("/") || !first.includes(":")) {
    return undefined;
  }
  return first.includes("=") ? undefined : first;
}

export function isCdrom(value: string): boolean {
  return parsePropertyString(value).opts["media"] === "cdrom";
}

/** PVE's size text for a byte count (`2G`, `512M`). */
export const bytesToSize = formatSize;

export { sizeToBytes };

/** A NIC value with a new MAC, as clone_vm gives every NIC of the copy (parse_net, print_net). */
export function withNewMac(value: string): string {
  const nic = parseNic(value, true);
  if (nic === undefined) return value;
  return printNic({ ...nic, macaddr: generateMac() });
}

/** PVE >= 7.3 tag normalisation: lower-case, de-duplicated, sorted, joined with `;`. */
export function normaliseTags(value: string): string {
  const tags = value
    .split(/[,;\s\0]+/)
    .filter((tag) => tag !== "")
    .map((tag) => tag.toLowerCase());
  return [...new Set(tags)].sort().join(";");
}

/** One section's lines: the description as `#` comments, then the keys in order. */
function renderSection(config: VmConfig): string[] {
  const lines: string[] = [];
  const description = config["description"];
  if (typeof description === "string") {
    for (const line of description.split("\n")) lines.push(`#${line}`);
  }
  for (const key of Object.keys(config).sort()) {
    if (key !== "description") lines.push(`${key}: ${config[key]}`);
  }
  return lines;
}

/**
 * The config file text PVE would write (write_vm_config: the current config, `[PENDING]`, then
 * each `[snapshot]` section); the digest is its SHA-1 like PVE's.
 */
function renderConfig(vm: Pick<VmRecord, "config" | "pending" | "snapshots">): string {
  const { config, pending } = vm;
  const lines = renderSection(config);
  const pendingKeys = Object.keys(pending).sort();
  if (pendingKeys.length > 0) {
    lines.push("", "[PENDING]");
    const deletes = pendingKeys.filter((key) => pending[key] === null);
    if (deletes.length > 0) lines.push(`delete: ${deletes.join(",")}`);
    for (const key of pendingKeys) if (pending[key] !== null) lines.push(`${key}: ${pending[key]}`);
  }
  for (const name of Object.keys(vm.snapshots ?? {}).sort()) {
    const snap = vm.snapshots?.[name];
    if (snap === undefined) continue;
    const meta: VmConfig = { snaptime: snap.snaptime };
    if (snap.description !== undefined) meta["description"] = snap.description;
    if (snap.vmstate !== undefined) meta["vmstate"] = snap.vmstate;
    if (snap.snapstate !== undefined) meta["snapstate"] = snap.snapstate;
    lines.push("", `[${name}]`, ...renderSection({ ...snap.config, ...meta }));
  }
  return `${lines.join("\n")}\n`;
}

export function configDigest(vm: Pick<VmRecord, "config" | "pending" | "snapshots">): string {
  return createHash("sha1").update(renderConfig(vm)).digest("hex");
}

/** The config with pending changes applied (what GET config returns without current=1). */
/** Removes a config key (Reflect keeps the linter's no-dynamic-delete rule meaningful elsewhere). */
export function unset(config: Record<string, unknown>, key: string): void {
  Reflect.deleteProperty(config, key);
}

export function withPending(vm: Pick<VmRecord, "config" | "pending">): VmConfig {
  const out: VmConfig = { ...vm.config };
  for (const [key, value] of Object.entries(vm.pending)) {
    if (value === null) unset(out, key);
    else out[key] = value;
  }
  return out;
}

/** MiB of a `memory` value (`4096` or `current=4096`; PVE's default 512). */
export function memoryMiB(raw: string | number | undefined): number {
  if (typeof raw === "number") return raw;
  return Number(parsePropertyString(String(raw ?? "512")).first.replace(/^current=/, "") || 512);
}

/** Memory in bytes from the `memory` property string. */
export function memoryBytes(config: VmConfig): number {
  return memoryMiB(config["memory"]) * 1024 * 1024;
}

export function cpuCount(config: VmConfig): number {
  const cores = Number(config["cores"] ?? 1);
  const sockets = Number(config["sockets"] ?? 1);
  return Number(config["vcpus"] ?? cores * sockets);
}

/** Sum of disk sizes (non-CD-ROM drives), as vmstatus' maxdisk (boot disk) approximates. */
export function maxDisk(config: VmConfig): number {
  for (const key of ["scsi0", "virtio0", "sata0", "ide0"]) {
    const value = config[key];
    if (typeof value === "string" && !isCdrom(value)) {
      return sizeToBytes(parsePropertyString(value).opts["size"] ?? "0");
    }
  }
  return 0;
}

/** `agent: 1` or `agent: enabled=1,...` → true. */
export function agentEnabled(config: VmConfig): boolean {
  const raw = config["agent"];
  if (raw === undefined) return false;
  const { first, opts } = parsePropertyString(String(raw));
  const enabled = opts["enabled"] ?? (first.includes("=") ? "0" : first);
  return enabled === "1";
}
