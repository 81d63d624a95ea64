import type { ParamSchema, ParamSpec } from "../http/index.js";
import { UNKNOWN_PROPERTY } from "../http/params.js";
import { parseDrive } from "../model/drive-format.js";
import type { PveVersion } from "../model/versions.js";
import { checkConfigFormat } from "./config-formats.js";

const bool: ParamSpec = { type: "boolean", optional: true };
const str: ParamSpec = { type: "string", optional: true };
/** A string key whose value PVE parses as a property string or a named format. */
const formatted = (name: string): ParamSpec => ({
  type: "string",
  optional: true,
  verify: (value) => checkConfigFormat(name, value),
});
const int = (min?: number, max?: number): ParamSpec => ({
  type: "integer",
  optional: true,
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
});

/** pve-common's `urlencoded` format (pve_verify_urlencoded). */
const urlencoded = (value: string): string | undefined =>
  /^[-%a-zA-Z0-9_.!~*'()]*$/.test(value) ? undefined : `invalid urlencoded string: ${value}`;

/**
 * The VM config keys (PVE 8.4 schema subset) that PUT/POST config accept; {@link KEYS_SINCE}
 * names the keys older releases lack.
 */
export const CONFIG_KEYS: ParamSchema = {
  acpi: bool,
  /** pve-common's `pve-cpuset` (qemu-server 7.3, "fix #3290"): `0-3,8`. */
  affinity: { type: "string", optional: true, pattern: /^\d+(-\d+)?(,\d+(-\d+)?)*$/ },
  agent: formatted("agent"),
  args: str,
  audio0: formatted("audio0"),
  autostart: bool,
  balloon: int(0),
  bios: { type: "string", optional: true, enum: ["seabios", "ovmf"] },
  boot: formatted("boot"),
  bootdisk: str,
  cdrom: str,
  cicustom: formatted("cicustom"),
  cipassword: str,
  citype: { type: "string", optional: true, enum: ["configdrive2", "nocloud", "opennebula"] },
  ciupgrade: bool,
  ciuser: str,
  cores: int(1),
  cpu: formatted("cpu"),
  cpulimit: { type: "number", optional: true, min: 0, max: 128 },
  cpuunits: int(1, 262144),
  description: { type: "string", optional: true, maxLength: 8192 },
  /** A `snippets` volume; update_vm checks it with PVE::GuestHelpers::check_hookscript. */
  hookscript: {
    type: "string",
    optional: true,
    verify: (v) =>
      /^[a-z][a-z0-9\-_.]*[a-z0-9]:.+$/i.test(v) ? undefined : `unable to parse volume ID '${v}'`,
  },
  hotplug: formatted("hotplug"),
  hugepages: { type: "string", optional: true, enum: ["any", "2", "1024"] },
  kvm: bool,
  localtime: bool,
  lock: {
    type: "string",
    optional: true,
    enum: [
      "backup",
      "clone",
      "create",
      "migrate",
      "rollback",
      "snapshot",
      "snapshot-delete",
      "suspending",
      "suspended",
    ],
  },
  machine: formatted("machine"),
  memory: formatted("memory"),
  name: { type: "string", optional: true, format: "dns-name" },
  nameserver: str,
  numa: bool,
  onboot: bool,
  ostype: {
    type: "string",
    optional: true,
    enum: [
      "other",
      "wxp",
      "w2k",
      "w2k3",
      "w2k8",
      "wvista",
      "win7",
      "win8",
      "win10",
      "win11",
      "l24",
      "l26",
      "solaris",
    ],
  },
  protection: bool,
  rng0: formatted("rng0"),
  scsihw: {
    type: "string",
    optional: true,
    enum: ["lsi", "lsi53c810", "virtio-scsi-pci", "virtio-scsi-single", "megasas", "pvscsi"],
  },
  searchdomain: str,
  shares: int(0, 50000),
  smbios1: { type: "string", optional: true, maxLength: 512 },
  sockets: int(1),
  sshkeys: { type: "string", optional: true, verify: urlencoded },
  startup: formatted("startup"),
  tablet: bool,
  tags: { type: "string", optional: true, format: "pve-tag-list" },
  template: bool,
  vcpus: int(1),
  vga: formatted("vga"),
  vmgenid: str,
  watchdog: formatted("watchdog"),
};

/** Keys of the table above that a modelled release's schema does not have yet. */
export const KEYS_SINCE: Readonly<Record<string, PveVersion>> = {
  // qemu-server 8.0.2, "fix #3428: cloudinit: add parameter for upgrade on boot".
  ciupgrade: "8.4",
};

const RELEASE_ORDER: readonly PveVersion[] = ["7.4", "8.4", "9.1"];

/**
 * What `release`'s schema says of the request's keys that the newest release's schema (which
 * the request was checked against) accepts: a key it lacks, a drive option it lacks.
 */
export function releaseProblems(
  params: Readonly<Record<string, string | number>>,
  release: PveVersion,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    const since = KEYS_SINCE[key];
    if (since !== undefined && RELEASE_ORDER.indexOf(release) < RELEASE_ORDER.indexOf(since))
      errors[key] = UNKNOWN_PROPERTY;
    // qemu-server added virtiofs with PVE 8.4.
    else if (/^virtiofs\d$/.test(key) && release === "7.4") errors[key] = UNKNOWN_PROPERTY;
    else if (/^(hostpci|usb)\d+$/.test(key)) {
      // Before 8.0 neither format has `mapping` (nor lets `host` be left out).
      const problem = checkConfigFormat(key, String(value), release);
      if (problem !== undefined) errors[key] = `invalid format - ${problem}`;
    } else if (/^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/.test(key)) {
      const problem = checkConfigFormat(key, String(value), release);
      if (problem !== undefined) errors[key] = `invalid format - ${problem}`;
      // $check_drive_param: what the schema takes but parse_drive refuses.
      else if (parseDrive(key, String(value), release) === undefined)
        errors[key] = "unable to parse drive options";
    }
  }
  return errors;
}

const FAMILIES: readonly [RegExp, ParamSpec][] = [
  [/^net\d+$/, str],
  [/^(ide[0-3]|sata[0-5]|scsi([0-9]|[12][0-9]|30)|virtio([0-9]|1[0-5])|efidisk0|tpmstate0)$/, str],
  [/^unused\d+$/, str],
  [/^ipconfig\d+$/, str],
  [/^serial[0-3]$/, { type: "string", optional: true, pattern: /^(\/dev\/.+|socket)$/ }],
  [/^(usb|hostpci|numa)\d+$/, str],
  [/^virtiofs\d$/, str],
];

export function configFamily(name: string): ParamSpec | undefined {
  const spec = FAMILIES.find(([re]) => re.test(name))?.[1];
  return spec === str ? formatted(name) : spec;
}

/**
 * The privilege PVE's check_vm_modify_config_perm wants for one key ("root" = root only). Before
 * qemu-server 8.0.2 ("allow setting ipconfigX with VM.Config.Cloudinit") `ipconfigN` wanted
 * VM.Config.Network.
 */
export function keyPrivilege(
  key: string,
  value: string | undefined,
  release: PveVersion = "8.4",
): string {
  if (/^ipconfig\d+$/.test(key) && release === "7.4") return "VM.Config.Network";
  // check_vm_modify_config_perm's last branch: a key in none of its lists (`$cpuoptions` has no
  // affinity, `$memoryoptions` no hugepages) is "only root can set '<key>' config".
  if (/^(lock|args|hookscript|affinity|hugepages|keephugepages)$/.test(key)) return "root";
  if (key === "vmstatestorage") return "VM.Config.Disk";
  if (
    /^(name|description|onboot|agent|protection|template|tags|startup|boot|bootdisk|ostype|tablet|localtime|acpi|autostart|kvm|smbios1|vmgenid)$/.test(
      key,
    )
  )
    return "VM.Config.Options";
  if (/^(cores|sockets|cpu|vcpus|cpulimit|cpuunits|numa|numa\d+)$/.test(key))
    return "VM.Config.CPU";
  if (/^(memory|balloon|shares)$/.test(key)) return "VM.Config.Memory";
  if (/^net\d+$/.test(key)) return "VM.Config.Network";
  if (
    /^(ciuser|cipassword|sshkeys|nameserver|searchdomain|ipconfig\d+|citype|ciupgrade|cicustom)$/.test(
      key,
    )
  )
    return "VM.Config.Cloudinit";
  if (key === "cdrom" || (configFamily(key) !== undefined && /media=cdrom/.test(value ?? "")))
    return "VM.Config.CDROM";
  if (/^(ide|sata|scsi|virtio|efidisk|tpmstate|unused)\d+$/.test(key)) return "VM.Config.Disk";
  return "VM.Config.HWType";
}

export const ANY_CONFIG_PRIV = [
  "VM.Config.Disk",
  "VM.Config.CDROM",
  "VM.Config.CPU",
  "VM.Config.Memory",
  "VM.Config.Network",
  "VM.Config.HWType",
  "VM.Config.Options",
  "VM.Config.Cloudinit",
];
