import {
  checkPropertyString,
  type FormatValidator,
  type PropertyFormat,
} from "../http/property-string.js";
import { bool, DRIVE_FORMATS, oneOf, opt } from "../model/drive-format.js";
import { NET_FORMAT } from "../model/nic-format.js";
import type { PveVersion } from "../model/versions.js";
import { AUDIO, NUMA, RNG, WATCHDOG } from "./device-formats.js";
import { passthroughFormat } from "../model/passthrough-formats.js";

/**
 * The property-string formats of the VM config keys (`cpu: host,flags=+aes`; drives and NICs
 * from `model/drive-format.ts` and `model/nic-format.ts`), checked
 * the way PVE::JSONSchema's parse_property_string and check_object do: a value that does not
 * parse, or a sub-key that fails its own schema, is one `invalid format - …` text for the key,
 * followed by one `<key>.<sub>: <reason>` line per failing sub-key.
 */

/** PVE 8.4's built-in CPU models (a `custom-` prefix names a cluster-wide model instead). */
const CPU_MODELS = new Set(
  `
  486 athlon Broadwell Broadwell-IBRS Broadwell-noTSX Broadwell-noTSX-IBRS Cascadelake-Server
  Cascadelake-Server-noTSX Cascadelake-Server-v2 Cascadelake-Server-v4 Cascadelake-Server-v5
  Conroe Cooperlake Cooperlake-v2 core2duo coreduo EPYC EPYC-Genoa EPYC-IBPB EPYC-Milan
  EPYC-Milan-v2 EPYC-Rome EPYC-Rome-v2 EPYC-Rome-v3 EPYC-Rome-v4 EPYC-v3 EPYC-v4 GraniteRapids
  Haswell Haswell-IBRS Haswell-noTSX Haswell-noTSX-IBRS host Icelake-Client
  Icelake-Client-noTSX Icelake-Server Icelake-Server-noTSX Icelake-Server-v3 Icelake-Server-v4
  Icelake-Server-v5 Icelake-Server-v6 IvyBridge IvyBridge-IBRS KnightsMill kvm32 kvm64 max
  Nehalem Nehalem-IBRS Opteron_G1 Opteron_G2 Opteron_G3 Opteron_G4 Opteron_G5 Penryn pentium
  pentium2 pentium3 phenom qemu32 qemu64 SandyBridge SandyBridge-IBRS SapphireRapids
  SapphireRapids-v2 Skylake-Client Skylake-Client-IBRS Skylake-Client-noTSX-IBRS
  Skylake-Client-v4 Skylake-Server Skylake-Server-IBRS Skylake-Server-noTSX-IBRS
  Skylake-Server-v4 Skylake-Server-v5 Westmere Westmere-IBRS x86-64-v2 x86-64-v2-AES x86-64-v3
  x86-64-v4
  `
    .trim()
    .split(/\s+/),
);

/** The flags a VM's own `cpu` may toggle (custom models may set any). */
const VM_CPU_FLAGS = [
  "pcid",
  "spec-ctrl",
  "ibpb",
  "ssbd",
  "virt-ssbd",
  "amd-ssbd",
  "amd-no-ssb",
  "pdpe1gb",
  "md-clear",
  "hv-tlbflush",
  "hv-evmcs",
  "aes",
];

/** A VM's `cpu` must name an existing model and may only toggle a few flags. */
function vmCpu(cpu: Readonly<Record<string, string>>): string | undefined {
  const type = cpu["cputype"];
  if (type === undefined || type === "") return "CPU is missing cputype";
  // The simulator defines no cluster-wide custom models.
  if (type.startsWith("custom-")) return `Custom cputype '${type.slice(7)}' not found`;
  if (!CPU_MODELS.has(type))
    return `Built-in cputype '${type}' is not defined (missing 'custom-' prefix?)`;
  const flags = cpu["flags"];
  const vmFlag = new RegExp(`^[+-](${VM_CPU_FLAGS.join("|")})$`);
  if (flags !== undefined && !flags.split(";").every((flag) => vmFlag.test(flag)))
    return `VM-specific CPU flags must be a subset of: ${VM_CPU_FLAGS.join(", ")}`;
  if (cpu["reported-model"] !== undefined)
    return "Property 'reported-model' not allowed in VM-specific CPU config.";
  return undefined;
}

function physBits(value: string): string | undefined {
  const ok = value === "host" || (/^\d{1,2}$/.test(value) && +value >= 8 && +value <= 64);
  return ok ? undefined : "value must be an integer between 8 and 64 or 'host'";
}

const CPU_FLAG = "[+-][a-zA-Z0-9\\-_.]+";

const CPU: PropertyFormat = {
  cputype: opt("string", { defaultKey: true }),
  flags: opt("string", { pattern: new RegExp(`^${CPU_FLAG}(;${CPU_FLAG})*$`) }),
  hidden: bool,
  "hv-vendor-id": opt("string", { pattern: /^[a-zA-Z0-9]{1,12}$/ }),
  "phys-bits": opt("string", { verify: physBits }),
  "reported-model": opt("string", { enum: [...CPU_MODELS] }),
};

const MEMORY: PropertyFormat = {
  current: { type: "integer", defaultKey: true, min: 16 },
};

const AGENT: PropertyFormat = {
  enabled: { type: "boolean", defaultKey: true },
  "freeze-fs-on-backup": bool,
  fstrim_cloned_disks: bool,
  type: oneOf("virtio", "isa"),
};

/** q35 or i440fx (`pc`), optionally pinned to a QEMU machine version (`pc-q35-8.1+pve0`). */
const MACHINE_TYPE =
  /^(pc|pc(-i440fx)?-\d+(\.\d+)+(\+pve\d+)?(\.pxe)?|q35|pc-q35-\d+(\.\d+)+(\+pve\d+)?(\.pxe)?|virt(?:-\d+(\.\d+)+)?(\+pve\d+)?)$/;

const MACHINE: PropertyFormat = {
  type: { type: "string", defaultKey: true, optional: true, pattern: MACHINE_TYPE },
  viommu: oneOf("intel", "virtio"),
  "enable-s3": bool,
  "enable-s4": bool,
};

const VGA: PropertyFormat = {
  type: {
    type: "string",
    defaultKey: true,
    optional: true,
    enum: "cirrus qxl qxl2 qxl3 qxl4 none serial0 serial1 serial2 serial3 std virtio virtio-gl vmware".split(
      " ",
    ),
  },
  memory: opt("integer", { min: 4, max: 512 }),
  clipboard: oneOf("vnc"),
};

const DRIVE_NAME =
  /^(ide[0-3]|sata[0-5]|scsi([0-9]|[12][0-9]|30)|virtio([0-9]|1[0-5])|efidisk0|tpmstate0)$/;

function bootOrder(value: string): string | undefined {
  const bad = value
    .split(";")
    .find((dev) => !DRIVE_NAME.test(dev) && !/^(net\d+|usb\d+|hostpci\d+)$/.test(dev));
  return bad === undefined ? undefined : `invalid boot device '${bad}'`;
}

const BOOT: PropertyFormat = {
  legacy: { type: "string", defaultKey: true, optional: true, pattern: /^[acdn]{1,4}$/ },
  order: opt("string", { verify: bootOrder }),
};

const IPV4_CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/;
const IPV4 = /^(\d{1,3}\.){3}\d{1,3}$/;
const IPV6_CIDR = /^[0-9a-f:]+\/\d{1,3}$/i;
const IPV6 = /^[0-9a-f:]+$/i;

const IPCONFIG: PropertyFormat = {
  ip: opt("string", {
    verify: (v) =>
      v === "dhcp" || IPV4_CIDR.test(v)
        ? undefined
        : "value does not look like a valid IPv4 network configuration",
  }),
  gw: opt("string", {
    verify: (v) => (IPV4.test(v) ? undefined : "value does not look like a valid IPv4 address"),
  }),
  ip6: opt("string", {
    verify: (v) =>
      v === "dhcp" || v === "auto" || IPV6_CIDR.test(v)
        ? undefined
        : "value does not look like a valid IPv6 network configuration",
  }),
  gw6: opt("string", {
    verify: (v) => (IPV6.test(v) ? undefined : "value does not look like a valid IPv6 address"),
  }),
};

/** pve-startup-order: `[order=]N,up=N,down=N`, parsed by hand in PVE (not a property format). */
function startupOrder(value: string): string | undefined {
  const ok = value
    .split(",")
    .filter((part) => !/^\s*$/.test(part))
    .every((part) => /^((order=)?\d+|up=\d+|down=\d+)$/.test(part));
  return ok ? undefined : "unable to parse startup options";
}

/** pve-hotplug-features: `0`, `1` (the default set) or a list of features. */
export const HOTPLUG_FEATURES = ["network", "disk", "cpu", "memory", "usb", "cloudinit"];

function hotplugFeatures(value: string): string | undefined {
  if (value === "0" || value === "1") return undefined;
  const bad = value.split(/[,;\s\0]+/).find((f) => f !== "" && !HOTPLUG_FEATURES.includes(f));
  return bad === undefined ? undefined : `invalid hotplug feature '${bad}'`;
}

const DRIVE = /^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/;

/** pve-qm-cicustom: a snippet volume per document. */
const VOLUME_ID = (v: string): string | undefined =>
  /^[a-z][a-z0-9\-_.]*[a-z0-9]:.+$/i.test(v) ? undefined : `unable to parse volume ID '${v}'`;
const CICUSTOM: PropertyFormat = Object.fromEntries(
  ["meta", "network", "user", "vendor"].map((key) => [key, opt("string", { verify: VOLUME_ID })]),
);

const FORMATS: readonly [RegExp, PropertyFormat, FormatValidator?][] = [
  [/^net\d+$/, NET_FORMAT],
  [/^ipconfig\d+$/, IPCONFIG],
  [/^cicustom$/, CICUSTOM],
  [/^cpu$/, CPU, vmCpu],
  [/^memory$/, MEMORY],
  [/^agent$/, AGENT],
  [/^machine$/, MACHINE],
  [/^vga$/, VGA],
  [/^boot$/, BOOT],
  [/^watchdog$/, WATCHDOG],
  [/^rng0$/, RNG],
  [/^audio0$/, AUDIO],
  [/^numa\d+$/, NUMA],
];

/**
 * The format check of a config key's value on `release` (the newest when not given, for the
 * schema check that runs before the handler knows the release): why it is bad, or undefined.
 */
export function checkConfigFormat(
  name: string,
  value: string,
  release: PveVersion = "9.1",
): string | undefined {
  if (name === "startup") return startupOrder(value);
  if (name === "hotplug") return hotplugFeatures(value);
  const bus = DRIVE.exec(name)?.[1];
  const drive = bus === undefined ? undefined : DRIVE_FORMATS[release][bus];
  if (drive !== undefined) return checkPropertyString(drive, name, value);
  const device = passthroughFormat(name, release);
  if (device !== undefined) return checkPropertyString(device, name, value);
  const entry = FORMATS.find(([re]) => re.test(name));
  return entry === undefined ? undefined : checkPropertyString(entry[1], name, value, entry[2]);
}
