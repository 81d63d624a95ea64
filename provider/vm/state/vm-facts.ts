/**
 * Pure readings of PVE's config and status values. One rule per fact, shared by create, read,
 * update and delete, so that a rule such as "the guest is running" lives in one place.
 */

/** A guest counts as running only when PVE says running and QMP does not say otherwise. */
export function guestRunning(status: string, qmpstatus: string | undefined): boolean {
  return (
    status === "running" && (qmpstatus === undefined || qmpstatus === "" || qmpstatus === "running")
  );
}

/** A NIC's config value (`net0`, `net1`…) in parts. */
export interface Nic {
  readonly model: string;
  readonly mac?: string | undefined;
  readonly bridge?: string | undefined;
  readonly vlan?: number | undefined;
  readonly firewall?: boolean | undefined;
  readonly mtu?: number | undefined;
  readonly rate?: number | undefined;
  readonly queues?: number | undefined;
  /** VLANs passed tagged, sorted; PVE's `20-30` ranges spelled out. */
  readonly trunks?: readonly number[] | undefined;
  readonly linkDown?: boolean | undefined;
}

/** `virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=20,firewall=1` → its parts. */
export function parseNic(value: string | undefined): Nic | undefined {
  if (!value) return undefined;
  const parts = value.split(",");
  const [model, mac] = (parts[0] ?? "").split("=");
  const option = (key: string) => parts.find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1);
  const number = (key: string) => {
    const text = option(key);
    return text === undefined ? undefined : Number(text);
  };
  const firewall = option("firewall");
  const linkDown = option("link_down");
  const trunks = option("trunks");
  return {
    model: model ?? "virtio",
    mac: mac?.toUpperCase(),
    bridge: option("bridge"),
    vlan: number("tag"),
    // PVE's booleans: 1/0, also on/off and yes/no in hand-edited configs.
    firewall: firewall === undefined ? undefined : /^(1|on|yes|true)$/i.test(firewall),
    mtu: number("mtu"),
    rate: number("rate"),
    queues: number("queues"),
    trunks: trunks === undefined ? undefined : vlanList(trunks),
    linkDown: linkDown === undefined ? undefined : /^(1|on|yes|true)$/i.test(linkDown),
  };
}

/** PVE's `10;20-22` as `[10, 20, 21, 22]`. */
function vlanList(text: string): number[] {
  const tags = text.split(";").flatMap((part) => {
    const [from = NaN, to = from] = part.split("-").map(Number);
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  });
  return [...new Set(tags)].sort((a, b) => a - b);
}

/**
 * The NIC value to write; keeps the current MAC unless the user pinned one. Options the NIC does
 * not set are left out, so PVE applies its defaults.
 */
export function formatNic(
  nic: Omit<Nic, "bridge"> & { bridge: string },
  currentMac: string | undefined,
): string {
  const mac = nic.mac ?? currentMac;
  const head = mac ? `${nic.model}=${mac.toUpperCase()}` : nic.model;
  const options: [string, string | number | undefined][] = [
    ["tag", nic.vlan],
    ["firewall", nic.firewall === undefined ? undefined : nic.firewall ? 1 : 0],
    ["mtu", nic.mtu],
    ["queues", nic.queues],
    ["rate", nic.rate],
    ["trunks", nic.trunks?.join(";")],
    ["link_down", nic.linkDown === undefined ? undefined : nic.linkDown ? 1 : 0],
  ];
  const rest = options.flatMap(([key, value]) => (value === undefined ? [] : [`,${key}=${value}`]));
  return `${head},bridge=${nic.bridge}${rest.join("")}`;
}

const DISK_KEYS = /^(scsi|virtio|sata|ide)\d+$/;

/** The boot disk: the first drive in `boot: order=` that is a disk, else the first disk key. */
export function bootDisk(config: Readonly<Record<string, unknown>>): string | undefined {
  const isDisk = (key: string) =>
    DISK_KEYS.test(key) &&
    typeof config[key] === "string" &&
    !String(config[key]).includes("media=cdrom");
  const order =
    String(config["boot"] ?? "")
      .match(/order=([^,]+)/)?.[1]
      ?.split(";") ?? [];
  return order.find(isDisk) ?? Object.keys(config).filter(isDisk).sort()[0];
}

/** A key holding a volume: a disk, CD-ROM, EFI or TPM disk. */
export const isDrive = (key: string): boolean =>
  DISK_KEYS.test(key) || /^(efidisk|tpmstate)0$/.test(key);

/**
 * Whether a config write does storage work: a drive value that asks PVE to allocate a volume
 * (`local-lvm:32,…`, where an existing volume is `local-lvm:vm-100-disk-0`), or a removed drive
 * or unused volume. PVE asks for such writes to go through its worker task (POST), not PUT.
 */
export function doesStorageWork(
  set: Readonly<Record<string, unknown>>,
  deleted: readonly string[],
): boolean {
  const allocates = ([key, value]: [string, unknown]) =>
    isDrive(key) && /^[^:,]+:\d+(\.\d+)?(,|$)/.test(String(value));
  return (
    Object.entries(set).some(allocates) ||
    deleted.some((key) => isDrive(key) || /^unused\d+$/.test(key))
  );
}

/**
 * The storages a VM's drives use (disks, EFI and TPM disks, CD-ROM images), each once: PVE clones
 * a VM to another node only when all of them are shared.
 */
export function driveStorages(config: Readonly<Record<string, unknown>>): string[] {
  const storages = Object.keys(config)
    .filter(isDrive)
    .map((key) => String(config[key]).split(",")[0] ?? "")
    .filter((volid) => volid.includes(":"))
    .map((volid) => volid.split(":")[0] ?? "");
  return [...new Set(storages)];
}

/** `shared:vm-100-disk-0,size=20G` → 20 (GiB, rounded up). */
export function diskSizeGiB(value: string | undefined): number | undefined {
  const match = value?.match(/(?:^|,)size=(\d+(?:\.\d+)?)([KMGT]?)(?:,|$)/);
  if (!match?.[1]) return undefined;
  const factor =
    { "": 1 / 1024 ** 3, K: 1 / 1024 ** 2, M: 1 / 1024, G: 1, T: 1024 }[match[2] ?? ""] ?? 1;
  return Math.ceil(Number(match[1]) * factor);
}

/** `local:iso/pp-x.iso,media=cdrom` → `local:iso/pp-x.iso`; undefined for an empty drive. */
export function cdromVolid(ide2: string | undefined): string | undefined {
  const volid = ide2?.split(",")[0];
  return volid && volid !== "none" && volid !== "cdrom" ? volid : undefined;
}

/** PVE stores tags joined with `;` (older hosts verbatim): → a normalised list. */
export function parseTags(value: string | undefined): string[] {
  if (!value) return [];
  return [
    ...new Set(
      value
        .split(/[;,\s]+/)
        .filter(Boolean)
        .map((t) => t.toLowerCase()),
    ),
  ].sort();
}
