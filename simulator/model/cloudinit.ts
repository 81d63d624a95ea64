import { createHash } from "node:crypto";
import { isCloudinitVolume } from "./drive-format.js";
import { parseNic } from "./nic-format.js";
import type { VmConfig } from "./types.js";
import type { PveVersion } from "./versions.js";

/**
 * PVE's own cloud-init drive: the documents qemu-server writes onto it, from
 * `PVE/QemuServer/Cloudinit.pm` (`cloudinit_userdata`, `nocloud_network`,
 * `configdrive2_network`, `nocloud_gen_metadata`, `dump_cloudinit_config`).
 */

/** The simulated node's /etc/resolv.conf, read when the VM sets no DNS of its own. */
export const HOST_RESOLV = { search: "sim", nameservers: ["192.0.2.1"] } as const;

/** The config keys whose changes the drive shows as pending (`$cloudinitoptions`). */
export const CLOUDINIT_OPTIONS = [
  "cicustom",
  "cipassword",
  "citype",
  "ciuser",
  "ciupgrade",
  "nameserver",
  "searchdomain",
  "sshkeys",
] as const;

/** The drive key of the VM's cloud-init volume, if it has one (has_cloudinit). */
export function cloudinitDrive(config: VmConfig): string | undefined {
  return Object.keys(config).find(
    (key) =>
      /^(ide|sata|scsi|virtio)\d+$/.test(key) &&
      isCloudinitVolume(String(config[key]).split(",")[0] ?? ""),
  );
}

const WINDOWS = /^(wxp|w2k|w2k3|w2k8|wvista|win7|win8|win10|win11)$/;

/** get_cloudinit_format: `citype`, else configdrive2 for Windows, else nocloud. */
export function cloudinitFormat(config: VmConfig): string {
  const citype = config["citype"];
  if (citype !== undefined) return String(citype);
  return WINDOWS.test(String(config["ostype"] ?? "")) ? "configdrive2" : "nocloud";
}

/** uri_unescape of the stored `sshkeys`, split into non-blank lines. */
export function sshKeyLines(config: VmConfig): string[] {
  const raw = config["sshkeys"];
  if (raw === undefined) return [];
  return decodeURIComponent(String(raw))
    .split("\n")
    .filter((line) => /\S/.test(line));
}

const KEY_TYPES =
  /^(ssh-rsa|ssh-dss|ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/;

/** Whether `ssh-keygen -l` would read the line: a key type and a blob that names that type. */
function readableKey(line: string): boolean {
  const words = line.trim().split(/\s+/);
  const at = words.findIndex((word) => KEY_TYPES.test(word));
  const type = words[at];
  const blob = words[at + 1];
  if (at < 0 || type === undefined || blob === undefined) return false;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return false;
  const bytes = Buffer.from(blob, "base64");
  const length = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
  return length > 0 && bytes.subarray(4, 4 + length).toString("latin1") === type;
}

/**
 * update_vm's `sshkeys` check (pve-common `validate_ssh_public_keys` after `uri_unescape`): its
 * die text when a line is not a public key, else undefined.
 */
export function sshKeysProblem(value: string): string | undefined {
  let text: string;
  try {
    text = decodeURIComponent(value);
  } catch {
    return "SSH public key validation error";
  }
  const bad = text.split("\n").find((line) => !/^\s*$/.test(line) && !readableKey(line));
  return bad === undefined ? undefined : "SSH public key validation error";
}

/** get_hostname_fqdn; before 8.0.2 ("pass through hostname via fqdn field") fqdn may be unset. */
function hostnameFqdn(config: VmConfig, vmid: number): [string, string | undefined] {
  const name = String(config["name"] ?? `VM${vmid}`);
  if (name.includes(".")) return [name.replace(/\..*$/, ""), name];
  const search = config["searchdomain"];
  return [name, search === undefined ? undefined : `${name}.${String(search)}`];
}

/** cloudinit_userdata as `release` writes it. */
export function userData(config: VmConfig, vmid: number, release: PveVersion): string {
  const [hostname, fqdn] = hostnameFqdn(config, vmid);
  const lines = ["#cloud-config", `hostname: ${hostname}`, "manage_etc_hosts: true"];
  if (release !== "7.4") lines.push(`fqdn: ${fqdn ?? hostname}`);
  else if (fqdn !== undefined) lines.push(`fqdn: ${fqdn}`);
  const user = config["ciuser"];
  if (user !== undefined) lines.push(`user: ${String(user)}`);
  if (user === "root") lines.push("disable_root: False");
  if (config["cipassword"] !== undefined) lines.push(`password: ${String(config["cipassword"])}`);
  const keys = sshKeyLines(config);
  if (config["sshkeys"] !== undefined)
    lines.push("ssh_authorized_keys:", ...keys.map((k) => `  - ${k}`));
  lines.push("chpasswd:", "  expire: False");
  if (user !== "root") lines.push("users:", "  - default");
  // ciupgrade arrived in 8.0.2 ("fix #3428"); 7.4 always upgrades.
  if (release === "7.4" || Number(config["ciupgrade"] ?? 1) !== 0)
    lines.push("package_upgrade: true");
  return `${lines.join("\n")}\n`;
}

/** One `ipconfigN`, as parse_ipconfig reads it (neither address given: DHCP on both). */
export interface IpConfig {
  readonly ip?: string;
  readonly gw?: string;
  readonly ip6?: string;
  readonly gw6?: string;
}

export function parseIpConfig(value: string): IpConfig {
  const out: Record<string, string> = {};
  for (const part of value.split(",")) {
    const [key = "", ...rest] = part.split("=");
    if (key !== "") out[key] = rest.join("=");
  }
  if (out["ip"] === undefined && out["ip6"] === undefined) return { ip: "dhcp", ip6: "dhcp" };
  return out;
}

/** The dotted mask of a prefix length (`$PVE::Network::ipv4_reverse_mask`). */
function mask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 255).join(".");
}

/** The `netN`/`ipconfigN` pairs, in config key order (the sort of `keys %$conf`). */
export function nicConfigs(config: VmConfig): [string, IpConfig, string][] {
  return Object.keys(config)
    .filter((key) => /^net\d+$/.test(key) && config[`ipconfig${key.slice(3)}`] !== undefined)
    .sort()
    .map((key) => {
      const mac = parseNic(String(config[key]), true)?.["macaddr"] ?? "";
      return [key.slice(3), parseIpConfig(String(config[`ipconfig${key.slice(3)}`])), mac];
    });
}

function dnsConf(config: VmConfig): { search: string[]; nameservers: string[] } {
  const split = (v: unknown): string[] =>
    String(v)
      .split(/\s+/)
      .filter((x) => x !== "");
  return {
    search: split(config["searchdomain"] ?? HOST_RESOLV.search),
    nameservers:
      config["nameserver"] === undefined
        ? [...HOST_RESOLV.nameservers]
        : split(config["nameserver"]),
  };
}

/** nocloud_network: network-config version 1. */
export function nocloudNetwork(config: VmConfig): string {
  let out = "version: 1\nconfig:\n";
  for (const [id, ip, mac] of nicConfigs(config)) {
    out += `    - type: physical\n      name: eth${id}\n      mac_address: '${mac.toLowerCase()}'\n      subnets:\n`;
    if (ip.ip === "dhcp") out += "      - type: dhcp4\n";
    else if (ip.ip !== undefined) {
      const [addr = "", prefix = "32"] = ip.ip.split("/");
      out += `      - type: static\n        address: '${addr}'\n        netmask: '${mask(Number(prefix))}'\n`;
      if (ip.gw !== undefined) out += `        gateway: '${ip.gw}'\n`;
    }
    if (ip.ip6 === "dhcp") out += "      - type: dhcp6\n";
    else if (ip.ip6 === "auto") out += "      - type: ipv6_slaac\n";
    else if (ip.ip6 !== undefined) {
      out += `      - type: static6\n        address: '${ip.ip6}'\n`;
      if (ip.gw6 !== undefined) out += `        gateway: '${ip.gw6}'\n`;
    }
  }
  const dns = dnsConf(config);
  out += "    - type: nameserver\n";
  if (dns.nameservers.length > 0)
    out += `      address:\n${dns.nameservers.map((n) => `      - '${n}'\n`).join("")}`;
  if (dns.search.length > 0)
    out += `      search:\n${dns.search.map((s) => `      - '${s}'\n`).join("")}`;
  return out;
}

/** configdrive2_network: an /etc/network/interfaces text. */
export function configdrive2Network(config: VmConfig): string {
  const dns = dnsConf(config);
  let out = "auto lo\niface lo inet loopback\n\n";
  if (dns.nameservers.length > 0) out += `        dns_nameservers ${dns.nameservers.join(" ")}\n`;
  if (dns.search.length > 0) out += `        dns_search ${dns.search.join(" ")}\n`;
  for (const [id, ip] of nicConfigs(config)) {
    out += `auto eth${id}\n`;
    if (ip.ip === "dhcp") out += `iface eth${id} inet dhcp\n`;
    else if (ip.ip !== undefined) {
      const [addr = "", prefix = "32"] = ip.ip.split("/");
      out += `iface eth${id} inet static\n        address ${addr}\n        netmask ${mask(Number(prefix))}\n`;
      if (ip.gw !== undefined) out += `        gateway ${ip.gw}\n`;
    }
    if (ip.ip6 === "dhcp" || ip.ip6 === "auto") out += `iface eth${id} inet6 ${ip.ip6}\n`;
    else if (ip.ip6 !== undefined) {
      const [addr = "", prefix = ""] = ip.ip6.split("/");
      out += `iface eth${id} inet6 static\n        address ${addr}\n        netmask ${prefix}\n`;
      if (ip.gw6 !== undefined) out += `        gateway ${ip.gw6}\n`;
    }
  }
  return out;
}

/** dump_cloudinit_config: the `user`, `network` or `meta` document of the VM's drive. */
export function dumpCloudinit(
  config: VmConfig,
  vmid: number,
  type: string,
  release: PveVersion,
): string {
  const nocloud = cloudinitFormat(config) === "nocloud";
  const user = userData(config, vmid, release);
  if (type === "user") return user;
  const network = nocloud ? nocloudNetwork(config) : configdrive2Network(config);
  if (type === "network") return network;
  const uuid = createHash("sha1")
    .update(user + network)
    .digest("hex");
  if (nocloud) return `instance-id: ${uuid}\n`;
  return `{\n     "uuid": "${uuid}",\n     "network_config": { "content_path": "/content/0000" }\n}\n`;
}
