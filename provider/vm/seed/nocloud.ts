/**
 * The NoCloud documents: meta-data, user-data, vendor-data and (when asked for) network-config,
 * rendered from parsed inputs. Pure. The rules are in docs/cloud-init.md.
 */
import { createHash } from "node:crypto";
import type { CloudInit, CloudInitNic, CloudInitUser } from "./seed-inputs.js";
import { emitYaml, type YamlValue } from "./yaml.js";

export interface SeedIdentity {
  /** Stable per VM (e.g. its claim identity); the instance-id is this plus a content hash. */
  readonly instanceId: string;
  /** Used when the inputs give no `hostname`. */
  readonly hostname: string;
}

export interface SeedDocuments {
  readonly "meta-data": string;
  readonly "user-data": string;
  readonly "vendor-data": string;
  /**
   * Absent when the inputs have no `network`: cloud-init then applies its own fallback (DHCP on
   * the first NIC), which is what a template expects; any default we wrote would replace it.
   */
  readonly "network-config"?: string;
}

const CLOUD_CONFIG = "#cloud-config";
const GUEST_AGENT_PACKAGE = "qemu-guest-agent";
const GUEST_AGENT_COMMAND = ["systemctl", "enable", "--now", "qemu-guest-agent"] as const;

/** Renders the documents. The instance-id changes whenever any other document changes. */
export function renderSeedDocuments(input: CloudInit, identity: SeedIdentity): SeedDocuments {
  const hostname = input.hostname ?? identity.hostname;
  const userData = input.userData ?? emitYaml(renderUserData(input), CLOUD_CONFIG);
  const vendorData = emitYaml(
    { packages: [GUEST_AGENT_PACKAGE], runcmd: [[...GUEST_AGENT_COMMAND]] },
    CLOUD_CONFIG,
  );
  const networkConfig =
    input.network === undefined ? undefined : emitYaml(renderNetwork(input.network));
  const hash = createHash("sha256");
  for (const part of [hostname, userData, vendorData, networkConfig ?? ""]) {
    hash.update(part).update("\0");
  }
  const instanceId = `${identity.instanceId}-${hash.digest("hex").slice(0, 12)}`;
  const metaData = emitYaml({ "instance-id": instanceId, "local-hostname": hostname });
  return {
    "meta-data": metaData,
    "user-data": userData,
    "vendor-data": vendorData,
    ...(networkConfig === undefined ? {} : { "network-config": networkConfig }),
  };
}

/**
 * The generated `#cloud-config`. `users` starts with `default` so the image's own user stays.
 * user-data keys replace vendor-data keys of the same name in cloud-init's merge, so when the
 * inputs set `packages` or `runcmd`, the guest agent is added to them here as well.
 */
function renderUserData(input: CloudInit): { [key: string]: YamlValue } {
  const doc: { [key: string]: YamlValue } = {};
  if (input.users !== undefined) doc["users"] = ["default", ...input.users.map(renderUser)];
  if (input.sshAuthorizedKeys !== undefined) doc["ssh_authorized_keys"] = input.sshAuthorizedKeys;
  if (input.packages !== undefined) {
    doc["packages"] = [...new Set([...input.packages, GUEST_AGENT_PACKAGE])];
  }
  if (input.runcmd !== undefined) doc["runcmd"] = [...input.runcmd, [...GUEST_AGENT_COMMAND]];
  if (input.writeFiles !== undefined) {
    doc["write_files"] = input.writeFiles.map((f) => ({
      path: f.path,
      content: f.content,
      ...(f.permissions === undefined ? {} : { permissions: f.permissions }),
      ...(f.owner === undefined ? {} : { owner: f.owner }),
    }));
  }
  return doc;
}

function renderUser(user: CloudInitUser): { [key: string]: YamlValue } {
  const out: { [key: string]: YamlValue } = { name: user.name };
  if (user.sshAuthorizedKeys !== undefined) out["ssh_authorized_keys"] = user.sshAuthorizedKeys;
  if (user.sudo === true) out["sudo"] = "ALL=(ALL) NOPASSWD:ALL";
  else if (typeof user.sudo === "string") out["sudo"] = user.sudo;
  if (user.groups !== undefined) out["groups"] = user.groups;
  if (user.shell !== undefined) out["shell"] = user.shell;
  if (user.lockPassword !== undefined) out["lock_passwd"] = user.lockPassword;
  if (user.hashedPassword !== undefined) out["hashed_passwd"] = user.hashedPassword;
  return out;
}

/**
 * Network config v2: one `ethernets` entry per NIC, `nic0`…, matched by MAC (and renamed
 * `eth<i>`) when given. An id matches nothing by itself, so a NIC without a MAC (allowed only
 * when it is the only one) matches any `e*` interface: en*, eth*.
 */
function renderNetwork(nics: readonly CloudInitNic[]): { [key: string]: YamlValue } {
  const ethernets: { [key: string]: YamlValue } = {};
  nics.forEach((nic, i) => {
    const id = `nic${i}`;
    const entry: { [key: string]: YamlValue } = {};
    if (nic.mac !== undefined) {
      entry["match"] = { macaddress: nic.mac.toLowerCase() };
      entry["set-name"] = `eth${i}`;
    } else {
      entry["match"] = { name: "e*" };
    }
    if (nic.dhcp4 !== undefined) entry["dhcp4"] = nic.dhcp4;
    if (nic.dhcp6 !== undefined) entry["dhcp6"] = nic.dhcp6;
    if (nic.addresses !== undefined) entry["addresses"] = nic.addresses;
    if (nic.gateway4 !== undefined) entry["gateway4"] = nic.gateway4;
    if (nic.gateway6 !== undefined) entry["gateway6"] = nic.gateway6;
    if (nic.nameservers !== undefined) {
      const ns: { [key: string]: YamlValue } = {};
      if (nic.nameservers.addresses !== undefined) ns["addresses"] = nic.nameservers.addresses;
      if (nic.nameservers.search !== undefined) ns["search"] = nic.nameservers.search;
      entry["nameservers"] = ns;
    }
    ethernets[id] = entry;
  });
  return { version: 2, ethernets };
}
