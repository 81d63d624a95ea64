import {
  formatSize,
  parseProperty,
  printProperty,
  type PropertyFormat,
  type SubKey,
} from "../http/property-string.js";
import { sizeToBytes } from "./byte-units.js";
import type { PveVersion } from "./versions.js";

/**
 * The drive property strings (`scsi0: local-lvm:vm-100-disk-0,size=32G`) of each modelled
 * release, from qemu-server `PVE/QemuServer/Drive.pm` (`%drivedesc_base`, the per-bus formats,
 * `$alldrive_fmt`, `%import_from_fmt`) and the release's API schema; and the one parser and one
 * printer every route uses (`parse_drive`, `print_drive`).
 */

export const opt = (type: SubKey["type"], extra: Partial<SubKey> = {}): SubKey => ({
  type,
  optional: true,
  ...extra,
});
export const bool = opt("boolean");
export const oneOf = (...values: string[]): SubKey => opt("string", { enum: values });
/** The same sub-key schema for each of a space-separated list of names. */
export const each = (names: string, spec: SubKey): PropertyFormat =>
  Object.fromEntries(names.split(" ").map((name) => [name, spec]));

const STORAGE_ID = "[a-z][a-z0-9\\-_.]*[a-z0-9]";
const VOLUME_ID = new RegExp(`^${STORAGE_ID}:.+$`, "i");
const DISK_SIZE = /^(\d+(\.\d+)?)([KMGT])?$/;

/** pve-volume-id-or-qm-path: a volume id, `none`, `cdrom` or an absolute path. */
export function volumeIdOrPath(value: string): string | undefined {
  if (value === "none" || value === "cdrom" || value.startsWith("/") || VOLUME_ID.test(value)) {
    return undefined;
  }
  return `unable to parse volume ID '${value}'`;
}

function diskSize(value: string): string | undefined {
  return DISK_SIZE.test(value) ? undefined : `value does not look like a valid disk size: ${value}`;
}

const FILE: SubKey = { type: "string", defaultKey: true, verify: volumeIdOrPath };
const SIZE = opt("string", { verify: diskSize });
/** pve-qm-image-format (8.4.5's schema no longer lists `cow`). */
export const IMAGE_FORMAT = oneOf("raw", "qcow", "qed", "qcow2", "vmdk", "cloop");

const THROTTLING: PropertyFormat = {
  ...each(
    "bps bps_rd bps_wr iops iops_max iops_rd iops_rd_max iops_wr iops_wr_max",
    opt("integer"),
  ),
  ...each(
    "bps_max_length bps_rd_max_length bps_wr_max_length iops_max_length iops_rd_max_length iops_wr_max_length",
    opt("integer", { min: 1 }),
  ),
  ...each("mbps mbps_max mbps_rd mbps_rd_max mbps_wr mbps_wr_max", opt("number")),
  // The legacy names of the burst lengths.
  bps_rd_length: { alias: "bps_rd_max_length", keyAlias: "" },
  bps_wr_length: { alias: "bps_wr_max_length", keyAlias: "" },
  iops_rd_length: { alias: "iops_rd_max_length", keyAlias: "" },
  iops_wr_length: { alias: "iops_wr_max_length", keyAlias: "" },
};

/** What every disk-like key says about its volume (`import-from` only where PVE allocates). */
const VOLUME: PropertyFormat = {
  file: FILE,
  volume: { alias: "file", keyAlias: "" },
  "import-from": opt("string", { verify: volumeIdOrPath }),
  size: SIZE,
};

/** `%drivedesc_base`: the options every bus shares. */
const DRIVE_BASE: PropertyFormat = {
  ...VOLUME,
  format: IMAGE_FORMAT,
  media: oneOf("cdrom", "disk"),
  cache: oneOf("none", "writethrough", "writeback", "unsafe", "directsync"),
  discard: oneOf("ignore", "on"),
  aio: oneOf("native", "threads", "io_uring"),
  ...each("backup replicate snapshot shared detect_zeroes", bool),
  rerror: oneOf("ignore", "report", "stop"),
  werror: oneOf("enospc", "ignore", "report", "stop"),
  serial: opt("string", { pattern: /^.{0,60}$/ }),
  trans: oneOf("none", "lba", "auto"),
  ...each("cyls heads secs", opt("integer")),
  ...THROTTLING,
};

const WWN = opt("string", { pattern: /^0x[0-9a-fA-F]{16}/ });
/** `%product_fmt`, `%vendor_fmt`: qemu-server 8.1.0 ("fix #4957"), so not on 7.4. */
const SCSI_INQUIRY: PropertyFormat = {
  product: opt("string", { pattern: /^[A-Za-z0-9\-_\s]{0,16}$/ }),
  vendor: opt("string", { pattern: /^[A-Za-z0-9\-_\s]{0,8}$/ }),
};

const EFIDISK: PropertyFormat = {
  ...VOLUME,
  format: IMAGE_FORMAT,
  efitype: oneOf("2m", "4m"),
  "pre-enrolled-keys": bool,
};

const TPMSTATE: PropertyFormat = { ...VOLUME, version: oneOf("v1.2", "v2.0") };
const UNUSED: PropertyFormat = { file: FILE, volume: { alias: "file", keyAlias: "" } };

/** One release's drive formats by bus. */
export type DriveFormats = Readonly<Record<string, PropertyFormat>>;

function driveFormats(scsiInquiry: boolean): DriveFormats {
  const inquiry = scsiInquiry ? SCSI_INQUIRY : {};
  return {
    ide: { ...DRIVE_BASE, model: opt("string", { pattern: /^.{0,120}$/ }), ssd: bool, wwn: WWN },
    sata: { ...DRIVE_BASE, ssd: bool, wwn: WWN },
    scsi: {
      ...DRIVE_BASE,
      ...inquiry,
      ...each("iothread ro scsiblock ssd", bool),
      queues: opt("integer", { min: 2 }),
      wwn: WWN,
    },
    virtio: { ...DRIVE_BASE, iothread: bool, ro: bool },
    efidisk: EFIDISK,
    tpmstate: TPMSTATE,
    unused: UNUSED,
  };
}

/** The drive formats per modelled release. */
export const DRIVE_FORMATS: Readonly<Record<PveVersion, DriveFormats>> = {
  "7.4": driveFormats(false),
  "8.4": driveFormats(true),
  "9.1": driveFormats(true),
};

/** `$alldrive_fmt_with_alloc`: every bus's options, the format print_drive prints with. */
function allDriveFormat(release: PveVersion): PropertyFormat {
  return Object.assign({}, ...Object.values(DRIVE_FORMATS[release])) as PropertyFormat;
}

/** A parsed drive: its sub-keys as PVE stores them (`file`, `media`, `size` in bytes…). */
export type Drive = Record<string, string>;

const BUS = /^(ide|sata|scsi|virtio|efidisk|tpmstate|unused)\d+$/;

/** Pairs parse_drive refuses: an option and the one it needs, or the two that exclude each other. */
const REQUIRES: readonly (readonly [string, string])[] = [
  ["mbps_max", "mbps"],
  ["mbps_rd_max", "mbps_rd"],
  ["mbps_wr_max", "mbps_wr"],
  ["bps_max_length", "mbps_max"],
  ["bps_rd_max_length", "mbps_rd_max"],
  ["bps_wr_max_length", "mbps_wr_max"],
  ["iops_max_length", "iops_max"],
  ["iops_rd_max_length", "iops_rd_max"],
  ["iops_wr_max_length", "iops_wr_max"],
];
const EXCLUDES = [
  ["mbps_rd", "mbps"],
  ["mbps_wr", "mbps"],
  ["iops_rd", "iops"],
  ["iops_wr", "iops"],
] as const;
const NOT_ON_CDROM = ["snapshot", "trans", "format", "heads", "secs", "cyls"];

/**
 * parse_drive: the drive of config key `key`, or undefined where PVE's parse_drive returns
 * nothing (the value does not parse for this release, or breaks one of its cross-key rules).
 */
export function parseDrive(key: string, value: string, release: PveVersion): Drive | undefined {
  const bus = BUS.exec(key)?.[1];
  const format = bus === undefined ? undefined : DRIVE_FORMATS[release][bus];
  if (format === undefined) return undefined;
  const drive = parseProperty(format, value);
  if (typeof drive === "string") return undefined;
  for (const opt of ["bps", "bps_rd", "bps_wr"]) {
    if (drive[opt] === undefined) continue;
    if (drive[`m${opt}`] !== undefined) return undefined;
    // parse_drive takes `defined(...)` (1), not the value, as the byte rate: 1 B/s in MB/s.
    Reflect.deleteProperty(drive, opt);
    drive[`m${opt}`] = (1 / (1024 * 1024)).toFixed(3);
  }
  if (REQUIRES.some(([option, needs]) => isSet(drive[option]) && !isSet(drive[needs])))
    return undefined;
  if (EXCLUDES.some(([a, b]) => isSet(drive[a]) && isSet(drive[b]))) return undefined;
  if (drive["media"] === "cdrom") {
    if (NOT_ON_CDROM.some((option) => isSet(drive[option])) || bus === "virtio") return undefined;
  }
  return drive;
}

/** Perl truth of a parsed value: set, and neither empty nor zero. */
function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && Number(value) !== 0;
}

/** print_drive: `file` bare, then the other options sorted, `size` as PVE prints sizes. */
export function printDrive(drive: Readonly<Drive>, release: PveVersion): string {
  const size = drive["size"];
  const printed = size === undefined ? drive : { ...drive, size: formatSize(sizeToBytes(size)) };
  return printProperty(allDriveFormat(release), printed);
}

/** drive_is_cloudinit: PVE's own cloud-init volume (`…:vm-100-cloudinit`, `….qcow2`). */
export function isCloudinitVolume(file: string): boolean {
  return /[:/](?:vm-\d+-)?cloudinit(?:\.(raw|qcow|qcow2|qed|vmdk|cloop))?$/.test(file);
}
