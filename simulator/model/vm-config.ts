import { createHash, randomBytes } from "node:crypto";
import type { VmConfig, VmRecord } from "./types.js";

/** Config keys that are drives (disks or CD-ROMs). */
export const DRIVE_KEY = /^(ide|sata|scsi|virtio|efidisk|tpmstate|unused)\d+$/;
export const NET_KEY = /^net\d+$/;

/** Keys PVE applies at once even on a running VM ("fast-plug" options and cloud-init). */
const FAST_PLUG =
  /^(name|description|tags|onboot|protection|lock|ciuser|cipassword|sshkeys|nameserver|searchdomain|ipconfig\d+|citype|ciupgrade|cicustom|startup|agent)$/;
/** Keys hot-plugged into a running VM with PVE's default `hotplug: network,disk,usb`. */
const HOT_PLUG = /^(net\d+|ide\d+|sata\d+|scsi\d+|virtio\d+|usb\d+)$/;

export function appliesLive(key: string): boolean {
  return FAST_PLUG.test(key) || HOT_PLUG.test(key);
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

/** `2G` → bytes; bare numbers are bytes, as in PVE's resize and drive `size=`. */
export function sizeToBytes(size: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(size);
  if (match === null) return 0;
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[match[2] ?? ""] ?? 1;
  return Math.round(Number(match[1]) * unit);
}

/** Bytes → PVE's size text (`2G`, `512M`), the largest unit that divides evenly. */
export function bytesToSize(bytes: number): string {
  for (const [unit, factor] of [
    ["T", 1024 ** 4],
    ["G", 1024 ** 3],
    ["M", 1024 ** 2],
    ["K", 1024],
  ] as const) {
    if (bytes % factor === 0 && bytes >= factor) return `${bytes / factor}${unit}`;
  }
  return String(bytes);
}

/** A MAC with Proxmox's OUI (datacenter mac_prefix default BC:24:11). */
export function generateMac(): string {
  const tail = [...randomBytes(3)].map((b) => b.toString(16).padStart(2, "0").toUpperCase());
  return ["BC", "24", "11", ...tail].join(":");
}

/** Replaces (or adds) the MAC of a `netN` value: `virtio,bridge=vmbr0` → `virtio=<mac>,bridge=vmbr0`. */
export function withMac(value: string, mac: string): string {
  const parts = value.split(",");
  const model = (parts[0] ?? "virtio").split("=")[0] ?? "virtio";
  return [`${model}=${mac}`, ...parts.slice(1)].join(",");
}

/** Ensures every NIC carries a MAC, generating one when the request omitted it (as PVE does). */
export function fillMac(value: string): string {
  const first = value.split(",")[0] ?? "";
  return first.includes("=") ? value : withMac(value, generateMac());
}

/** PVE >= 7.3 tag normalisation: lower-case, de-duplicated, sorted, joined with `;`. */
export function normaliseTags(value: string): string {
  const tags = value
    .split(/[,;\s\0]+/)
    .filter((tag) => tag !== "")
    .map((tag) => tag.toLowerCase());
  return [...new Set(tags)].sort().join(";");
}

/** The config file text PVE would write; the digest is its SHA-1 like PVE's. */
export function renderConfig(config: VmConfig, pending: VmRecord["pending"]): string {
  const lines: string[] = [];
  const description = config["description"];
  if (typeof description === "string") {
    for (const line of description.split("\n")) lines.push(`#${line}`);
  }
  for (const key of Object.keys(config).sort()) {
    if (key !== "description") lines.push(`${key}: ${config[key]}`);
  }
  const pendingKeys = Object.keys(pending).sort();
  if (pendingKeys.length > 0) {
    lines.push("", "[PENDING]");
    const deletes = pendingKeys.filter((key) => pending[key] === null);
    if (deletes.length > 0) lines.push(`delete: ${deletes.join(",")}`);
    for (const key of pendingKeys) if (pending[key] !== null) lines.push(`${key}: ${pending[key]}`);
  }
  return `${lines.join("\n")}\n`;
}

export function configDigest(vm: Pick<VmRecord, "config" | "pending">): string {
  return createHash("sha1").update(renderConfig(vm.config, vm.pending)).digest("hex");
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

/** Memory in bytes from the `memory` property string (MiB, default 512). */
export function memoryBytes(config: VmConfig): number {
  const raw = config["memory"];
  const current =
    typeof raw === "number"
      ? raw
      : Number(parsePropertyString(String(raw ?? "512")).first.replace(/^current=/, "") || 512);
  return current * 1024 * 1024;
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
