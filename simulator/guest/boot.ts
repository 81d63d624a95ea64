import type { SimContext } from "../context.js";
import type { GuestInterface, VmRecord } from "../model/types.js";
import {
  cloudinitDrive,
  cloudinitFormat,
  nicConfigs,
  sshKeyLines,
  userData,
} from "../model/cloudinit.js";
import { isCloudinitVolume } from "../model/drive-format.js";
import { driveVolume, parsePropertyString } from "../model/vm-config.js";
import { IsoError, readIso } from "./iso9660.js";
import { parse, YAMLError } from "yaml";

interface Nic {
  readonly name: string;
  readonly mac: string;
  readonly bridge: string;
}

function nicsOf(vm: VmRecord): Nic[] {
  return Object.keys(vm.config)
    .filter((key) => /^net\d+$/.test(key))
    .sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)))
    .map((key, index) => {
      const { first, opts } = parsePropertyString(String(vm.config[key]));
      return {
        name: `eth${index}`,
        mac: (first.split("=")[1] ?? "").toLowerCase(),
        bridge: opts["bridge"] ?? "",
      };
    });
}

function asMap(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A seed whose documents the guest's cloud-init could not use. */
class SeedError extends Error {}

/**
 * Reads a seed document as cloud-init does: PyYAML's `safe_load`, YAML 1.1 (`yes`/`on` are
 * booleans, `0755` is octal), one document, duplicate keys allowed (the last one wins), none of
 * YAML 1.2's strictness rules for unambiguous text (a comment right after a quote). A syntax
 * error throws a `YAMLError`; warnings (an unknown tag) are not printed. The package reports an
 * alias it cannot resolve, or more than 100 of them, as a `ReferenceError`: a seed error too.
 */
function loadYaml(text: string): unknown {
  try {
    return parse(text, {
      version: "1.1",
      strict: false,
      uniqueKeys: false,
      prettyErrors: false,
      logLevel: "error",
    }) as unknown;
  } catch (err) {
    if (err instanceof ReferenceError) throw new SeedError(err.message);
    throw err;
  }
}

/** An IPv6 link-local address derived from the MAC (EUI-64), as the guest kernel assigns. */
function linkLocal(mac: string): string {
  const b = mac.split(":").map((h) => parseInt(h, 16));
  const eui = [(b[0] ?? 0) ^ 2, b[1] ?? 0, b[2] ?? 0, 0xff, 0xfe, b[3] ?? 0, b[4] ?? 0, b[5] ?? 0];
  const groups = [0, 2, 4, 6].map((i) => (((eui[i] ?? 0) << 8) | (eui[i + 1] ?? 0)).toString(16));
  return `fe80::${groups.join(":")}`;
}

/** Docker's default bridge: its own locally administered MAC and 172.17.0.1/16. */
const DOCKER0: GuestInterface = {
  name: "docker0",
  "hardware-address": "02:42:ac:11:00:01",
  "ip-addresses": [
    { "ip-address": "172.17.0.1", "ip-address-type": "ipv4", prefix: 16 },
    { "ip-address": "fe80::42:acff:fe11:1", "ip-address-type": "ipv6", prefix: 64 },
  ],
};

/** A 169.254/16 address from the MAC's last two bytes, as avahi-autoipd would pick. */
function apipaOf(mac: string): string {
  const b = mac.split(":").map((h) => parseInt(h, 16));
  return `169.254.${Math.max(1, Math.min(254, b[4] ?? 1))}.${b[5] ?? 1}`;
}

/** network-config v2 `ethernets` → addresses per NIC (DHCP leases from the bridge pool). */
function configureNics(sim: SimContext, nics: Nic[], network: unknown): GuestInterface[] {
  const ethernets = asMap(asMap(network)?.["ethernets"]);
  // A container host lists its docker0 bridge before the NICs (interface index order).
  const out: GuestInterface[] = sim.options.guest.dockerBridge ? [DOCKER0] : [];
  nics.forEach((nic, index) => {
    let entry: Record<string, unknown> | undefined;
    for (const [id, value] of Object.entries(ethernets ?? {})) {
      const spec = asMap(value);
      const mac = asMap(spec?.["match"])?.["macaddress"];
      if (typeof mac === "string" ? mac.toLowerCase() === nic.mac : id === nic.name) entry = spec;
    }
    // Without a network-config, cloud-init's fallback is DHCP on the first NIC.
    const dhcp =
      entry === undefined ? network === undefined && index === 0 : entry["dhcp4"] === true;
    const addresses: GuestInterface["ip-addresses"] = [];
    // A guest whose DHCP was slow or failed once keeps a zeroconf address on the NIC too.
    if (index === 0 && sim.options.guest.apipa)
      addresses.push({ "ip-address": apipaOf(nic.mac), "ip-address-type": "ipv4", prefix: 16 });
    if (dhcp) {
      const lease = sim.pools.lease(nic.bridge, nic.mac);
      if (lease !== undefined)
        addresses.push({
          "ip-address": lease.address,
          "ip-address-type": "ipv4",
          prefix: lease.prefix,
        });
    }
    const statics = entry?.["addresses"];
    for (const item of Array.isArray(statics) ? statics : []) {
      const [ip = "", prefix] = String(item).split("/");
      const v6 = ip.includes(":");
      addresses.push({
        "ip-address": ip,
        "ip-address-type": v6 ? "ipv6" : "ipv4",
        prefix: Number(prefix ?? (v6 ? 128 : 32)),
      });
    }
    addresses.push({ "ip-address": linkLocal(nic.mac), "ip-address-type": "ipv6", prefix: 64 });
    out.push({ name: nic.name, "hardware-address": nic.mac, "ip-addresses": addresses });
  });
  return out;
}

/** Whether cloud-init's user-data installs the guest agent (`packages: [qemu-guest-agent]`). */
function installsAgent(userData: Buffer | undefined): boolean {
  if (userData === undefined) return false;
  const packages = asMap(loadYaml(userData.toString("utf8")))?.["packages"];
  if (!Array.isArray(packages)) return false;
  // An entry is a name or a [name, version] pair.
  return packages.some((p) => (Array.isArray(p) ? p[0] : p) === "qemu-guest-agent");
}

/** What the guest's cloud-init read from one seed. */
interface Seed {
  hostname?: string;
  network?: unknown;
  installsAgent: boolean;
  user?: { name: string; sshKeys: string[] };
}

/** The user and keys a user-data document configures (its top-level `user`, `ssh_authorized_keys`). */
function userOf(doc: Record<string, unknown> | undefined): Seed["user"] {
  const user = doc?.["user"];
  const name = typeof user === "string" ? user : asMap(user)?.["name"];
  const keys = doc?.["ssh_authorized_keys"];
  if (typeof name !== "string" && !Array.isArray(keys)) return undefined;
  return {
    name: typeof name === "string" ? name : "default",
    sshKeys: Array.isArray(keys) ? keys.map(String) : [],
  };
}

/** Our provider's NoCloud seed ISO in ide2; a problem is thrown as a seed error. */
function readIsoSeed(sim: SimContext, vm: VmRecord, volid: string): Seed {
  const volume = sim.cluster.volume(vm.node, volid);
  if (volume?.data === undefined)
    throw new IsoError(`seed volume '${volid}' has no readable content`);
  const iso = readIso(volume.data);
  if (iso.volumeId.toLowerCase() !== "cidata")
    throw new IsoError(`volume label '${iso.volumeId}' is not 'cidata'`);
  const meta = iso.files.get("meta-data");
  if (meta === undefined) throw new IsoError("no meta-data file on the seed");
  const name = asMap(loadYaml(meta.toString("utf8")))?.["local-hostname"];
  const userData = iso.files.get("user-data");
  const seed: Seed = {
    installsAgent: installsAgent(userData),
    ...(typeof name === "string" ? { hostname: name } : {}),
  };
  const user = userOf(
    userData === undefined ? undefined : asMap(loadYaml(userData.toString("utf8"))),
  );
  if (user !== undefined) seed.user = user;
  const net = iso.files.get("network-config");
  if (net !== undefined) {
    const parsed = asMap(loadYaml(net.toString("utf8")));
    // Accept both the bare v2 document and the `network:` wrapped form.
    const config = asMap(parsed?.["network"]) ?? parsed;
    if (config?.["version"] !== 2)
      throw new SeedError(`unsupported network-config version '${String(config?.["version"])}'`);
    seed.network = config;
  }
  return seed;
}

/**
 * PVE's own cloud-init drive, as qemu-server generates it at start: the hostname, user and keys
 * of `cloudinit_userdata`, and one `ethernets` entry per NIC with an `ipconfigN` (matched by
 * MAC; `dhcp` leases, a CIDR is taken as given), in the shape `configureNics` reads.
 */
function pveSeed(sim: SimContext, vm: VmRecord): Seed {
  const release = sim.options.profile.pveVersion;
  const doc = asMap(loadYaml(userData(vm.config, vm.vmid, release)));
  const ethernets: Record<string, unknown> = {};
  for (const [id, ip, mac] of nicConfigs(vm.config)) {
    const addresses = [ip.ip, ip.ip6].filter(
      (a): a is string => a !== undefined && a.includes("/"),
    );
    ethernets[`net${id}`] = {
      match: { macaddress: mac.toLowerCase() },
      dhcp4: ip.ip === "dhcp",
      addresses,
    };
  }
  const hostname = doc?.["hostname"];
  const seed: Seed = { network: { version: 2, ethernets }, installsAgent: false };
  if (typeof hostname === "string") seed.hostname = hostname;
  const user = userOf(doc);
  seed.user = { name: user?.name ?? "default", sshKeys: sshKeyLines(vm.config) };
  return seed;
}

/** A CD-ROM drive's place among the guest's optical devices (/dev/sr0, sr1…). */
function deviceOrder(key: string): number {
  const match = /^(ide|sata|scsi)(\d+)$/.exec(key);
  const bus = ["ide", "sata", "scsi"].indexOf(match?.[1] ?? "");
  return bus * 100 + Number(match?.[2] ?? 0);
}

/**
 * Boots the guest: reads the NoCloud seed in ide2 (a problem is recorded as `seedError`, not
 * thrown) and PVE's cloud-init drive. With both, cloud-init's NoCloud datasource takes the
 * `cidata` device that sorts last (`devlist.sort(reverse=True)` in DataSourceNoCloud's
 * `_get_data`): the later optical device; a configdrive2 or opennebula drive loses to any
 * NoCloud seed (NoCloud comes first in cloud-init's datasource list). Answers whether the
 * booted guest has an agent, per the `guest.agent` option.
 */
export function bootGuest(sim: SimContext, vm: VmRecord): { agentInstalled: boolean } {
  const nics = nicsOf(vm);
  const ide2 = vm.config["ide2"];
  const volid = ide2 === undefined ? undefined : driveVolume(String(ide2));
  delete vm.guest.seedError;
  let iso: Seed | undefined;
  if (volid !== undefined && !isCloudinitVolume(volid)) {
    try {
      iso = readIsoSeed(sim, vm, volid);
    } catch (err) {
      if (!(err instanceof IsoError) && !(err instanceof SeedError) && !(err instanceof YAMLError))
        throw err;
      vm.guest.seedError = err.message;
    }
  }
  const pveKey = cloudinitDrive(vm.config);
  // qemu-server writes the drive anew at every start: the recorded changes are now applied.
  delete vm.cloudinitChanges;
  const pve = pveKey === undefined ? undefined : pveSeed(sim, vm);
  const pveWins =
    pve !== undefined &&
    (iso === undefined ||
      (cloudinitFormat(vm.config) === "nocloud" &&
        deviceOrder(pveKey ?? "") > deviceOrder("ide2")));
  const seed = pveWins ? pve : iso;
  vm.guest.hostname = seed?.hostname ?? `vm${vm.vmid}`;
  if (seed?.user === undefined) delete vm.guest.user;
  else vm.guest.user = seed.user;
  vm.guest.interfaces = configureNics(sim, nics, seed?.network);
  const source = sim.options.guest.agent;
  const fromUserData = seed?.installsAgent ?? false;
  return { agentInstalled: source === "preinstalled" || (source === "user-data" && fromUserData) };
}

/** Gives the VM's DHCP leases back to the pools: called when the VM is destroyed. */
export function releaseLeases(sim: SimContext, vm: VmRecord): void {
  for (const nic of nicsOf(vm)) if (nic.mac !== "") sim.pools.release(nic.mac);
}
