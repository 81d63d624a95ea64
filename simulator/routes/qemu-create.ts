import { randomUUID } from "node:crypto";
import { requireAnyPriv, requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import {
  dieError,
  NODE,
  paramError,
  permError,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import { scaleBytes } from "../model/byte-units.js";
import { sshKeysProblem } from "../model/cloudinit.js";
import { Cluster } from "../model/cluster.js";
import { createDrive, NEW_DISK } from "../model/create-drive.js";
import { allocateDisk } from "../model/disk-volumes.js";
import { parseDrive, printDrive, type Drive } from "../model/drive-format.js";
import { volumeOwner, volumeType } from "../model/storage-files.js";
import { hashPassword } from "../model/sha-crypt.js";
import type { TaskContext } from "../model/tasks.js";
import type { VmConfig } from "../model/types.js";
import { renderNic } from "../model/nic-format.js";
import { clampCpuUnits } from "../model/pve-features.js";
import { DRIVE_KEY } from "../model/vm-config.js";
import { CONFIG_KEYS, configFamily, releaseProblems } from "./config-schema.js";
import { checkKeyPrivileges } from "./config-privileges.js";

/** A drive value's volume (`file`, however it was written) and its other options. */
function fileAndOptions(key: string, value: string): { first: string; opts: Drive } {
  const { file = "", ...opts } = parseDrive(key, value, "9.1") ?? {};
  return { first: file, opts };
}
/** parse_volume_id: `<storage>:<volname>`; anything else (an absolute path) is not a volume. */
const VOLID = /^([a-z][a-z0-9\-_.]*[a-z0-9]):(.+)$/i;

const CREATE_CONTROL = new Set(["node", "vmid", "storage", "pool"]);

function driveKeys(params: Params): string[] {
  return Object.keys(params)
    .filter((key) => DRIVE_KEY.test(key) && !key.startsWith("unused"))
    .sort();
}

/** check_volume_access: read access to a volume someone else owns. */
function checkVolumeAccess(sim: SimContext, tokenId: string, vmid: number, volid: string): void {
  const volume = VOLID.exec(volid);
  if (volume === null) throw dieError("Only root can pass arbitrary filesystem paths.");
  const [, sid = "", volname = ""] = volume;
  const path = `/storage/${sid}`;
  if (sim.tokens.has(tokenId, path, "Datastore.Allocate")) return;
  const vtype = volumeType(volname);
  if (vtype === "iso" || vtype === "vztmpl" || vtype === "import") {
    requireAnyPriv(sim, tokenId, path, ["Datastore.AllocateSpace", "Datastore.Audit"]);
  } else if (volumeOwner(volname) !== vmid) {
    requirePrivs(sim, tokenId, path, ["Datastore.Allocate"]);
  }
}

/** $check_storage_access for one drive of a create request. */
function checkDriveAccess(
  sim: SimContext,
  tokenId: string,
  params: Params,
  key: string,
  value: string,
): void {
  const vmid = Number(params["vmid"]);
  const { first: volid, opts } = fileAndOptions(key, value);
  const newDisk = NEW_DISK.exec(volid);
  if (volid === "none" || volid === "cdrom" || /(^|:)cloudinit$/.test(volid)) {
    // nothing to check
  } else if (newDisk !== null && opts["media"] !== "cdrom") {
    const sid = newDisk[1] ?? (params["storage"] === undefined ? "" : String(params["storage"]));
    if (sid === "") throw dieError("no storage ID specified (and no default storage)");
    requirePrivs(sim, tokenId, `/storage/${sid}`, ["Datastore.AllocateSpace"]);
    const def = sim.cluster.storages.find((s) => s.storage === sid);
    if (def === undefined) throw dieError(`storage '${sid}' does not exist`);
    if (!def.content.includes("images"))
      throw paramError({ storage: `storage '${sid}' does not support vm images` });
  } else {
    checkVolumeAccess(sim, tokenId, vmid, volid);
    const vtype = volumeType(VOLID.exec(volid)?.[2] ?? "");
    if (vtype !== "images" && vtype !== "iso")
      throw paramError({ [key]: "content type needs to be 'images' or 'iso'" });
  }
  const source = opts["import-from"];
  if (source === undefined) return;
  const parsed = VOLID.exec(source);
  if (parsed !== null) {
    const [, sid = "", volname = ""] = parsed;
    if (sim.cluster.storages.find((s) => s.storage === sid) === undefined)
      throw dieError(`storage '${sid}' does not exist`);
    const vtype = volumeType(volname);
    if (vtype !== "images" && vtype !== "import")
      throw paramError({
        [key]: `${source} has wrong type '${vtype}' - needs to be 'images' or 'import'`,
      });
    const owner = volumeOwner(volname);
    if (vtype === "images" && owner !== undefined) {
      requirePrivs(sim, tokenId, `/vms/${owner}`, ["VM.Clone"]);
      return;
    }
  }
  checkVolumeAccess(sim, tokenId, vmid, source);
}

/** $check_drive_param: the syntax import-from needs, and media=cdrom for ISO volumes. */
function checkDriveSyntax(key: string, value: string): void {
  const { first, opts } = fileAndOptions(key, value);
  if (opts["import-from"] !== undefined && NEW_DISK.exec(first)?.[2] !== "0") {
    throw paramError({
      [key]: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>",
    });
  }
  const volname = VOLID.exec(first)?.[2];
  if (volname !== undefined && volumeType(volname) === "iso" && opts["media"] !== "cdrom")
    throw paramError({ [key]: "explicit 'media=cdrom' is required for iso images" });
}

/** PVE::Tools::render_bytes as qemu_img_convert's progress lines use it. */
function renderBytes(bytes: number): string {
  const { value, power } = scaleBytes(bytes);
  return `${value.toFixed(1)} ${["B", "KiB", "MiB", "GiB", "TiB"][power] ?? ""}`;
}

/**
 * create_disks for one drive: one imported from a volume (`<storage>:0,import-from=<volid>`),
 * else what every route does with a drive value (a new disk, PVE's cloud-init drive, an
 * existing volume, `none`/`cdrom`).
 */
function createDisk(
  sim: SimContext,
  params: Params,
  key: string,
  value: string,
  config: VmConfig,
  created: string[],
  ctx: TaskContext,
): string {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const release = sim.options.profile.pveVersion;
  const drive = parseDrive(key, value, release);
  const source = drive?.["import-from"];
  if (drive === undefined || source === undefined) {
    const storage = params["storage"];
    const target = {
      cluster: sim.cluster,
      node,
      vmid,
      release,
      others: [config],
      created,
      ...(storage === undefined ? {} : { defaultStorage: String(storage) }),
    };
    const before = created.length;
    const stored = createDrive(target, key, value);
    if (created.length > before) ctx.log(`${key}: successfully created disk '${stored}'`);
    return stored;
  }
  const sid = NEW_DISK.exec(drive["file"] ?? "")?.[1] ?? String(params["storage"]);
  const from = sim.cluster.volume(node, source);
  if (from === undefined)
    throw dieError(`cannot import from '${source}' - could not get size of ${source}`);
  const volid = allocateDisk(sim.cluster, node, sid, vmid, from.size, drive["format"]);
  created.push(volid);
  ctx.log(`transferred 0.0 B of ${renderBytes(from.size)} (0.00%)`);
  ctx.log(`transferred ${renderBytes(from.size)} of ${renderBytes(from.size)} (100.00%)`);
  const { "import-from": _source, format: _format, ...rest } = drive;
  const stored = printDrive({ ...rest, file: volid, size: String(from.size) }, release);
  ctx.log(`${key}: successfully created disk '${stored}'`);
  return stored;
}

/** create_disks and the config write; on failure the disks made so far are freed. */
async function createDisksAndConfig(
  sim: SimContext,
  params: Params,
  ctx: TaskContext,
): Promise<void> {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const created: string[] = [];
  try {
    const config: VmConfig = {};
    for (const [key, value] of Object.entries(params)) {
      if (CREATE_CONTROL.has(key)) continue;
      if (/^net\d+$/.test(key)) config[key] = renderNic(String(value));
      else if (key === "cipassword") config[key] = hashPassword(String(value));
      else if (key === "cpuunits")
        config[key] = clampCpuUnits(Number(value), sim.options.profile.pveVersion);
      else config[key] = value;
    }
    for (const key of driveKeys(params)) {
      config[key] = createDisk(sim, params, key, String(params[key]), config, created, ctx);
    }
    await ctx.wait(1);
    if (config["boot"] === undefined) {
      const devices = Object.keys(config)
        .filter((key) => (DRIVE_KEY.test(key) && !key.startsWith("unused")) || /^net\d+$/.test(key))
        .sort((a, b) => Number(/^net/.test(a)) - Number(/^net/.test(b)) || a.localeCompare(b));
      config["boot"] = `order=${devices.join(";")}`;
    }
    config["smbios1"] ??= `uuid=${randomUUID()}`;
    config["vmgenid"] ??= randomUUID();
    config["meta"] = `creation-qemu=9.2.0,ctime=${Math.floor(Date.now() / 1000)}`;
    const vm = sim.cluster.vmOn(node, vmid);
    if (vm === undefined) throw dieError("config file vanished");
    vm.config = config;
    sim.cluster.observe(vm);
    sim.changed();
  } catch (err) {
    for (const volid of created) sim.cluster.deleteVolume(node, volid);
    throw err instanceof Error ? dieError(`unable to create VM ${vmid} - ${err.message}`) : err;
  }
}

/** A failed create removes the config it made (create_vm's error path), so it can be repeated. */
function removeConfig(sim: SimContext, vmid: number): void {
  sim.cluster.removeVm(vmid);
  sim.changed();
}

/**
 * The qmcreate worker: under the VM's flock, disks then config. Whatever fails (the flock
 * included), the config file, still `lock: create`, is removed, so the request can be repeated.
 */
async function createWorker(sim: SimContext, params: Params, ctx: TaskContext): Promise<void> {
  const vmid = Number(params["vmid"]);
  let release: (() => void) | undefined;
  try {
    release = await sim.flocks.acquire(vmid, true, 1000);
    await createDisksAndConfig(sim, params, ctx);
  } catch (err) {
    removeConfig(sim, vmid);
    throw err;
  } finally {
    release?.();
  }
}

export const qemuCreateRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/qemu",
    params: {
      ...CONFIG_KEYS,
      node: NODE,
      vmid: VMID,
      storage: { type: "string", optional: true, format: "pve-storage-id" },
      pool: { type: "string", optional: true },
    },
    dynamicParam: configFamily,
    handler: ({ sim, tokenId, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const problems = releaseProblems(params, sim.options.profile.pveVersion);
      if (Object.keys(problems).length > 0) throw paramError(problems);
      const sshkeys = params["sshkeys"];
      const keyProblem = sshkeys === undefined ? undefined : sshKeysProblem(String(sshkeys));
      if (keyProblem !== undefined) throw dieError(keyProblem);
      if (params["pool"] !== undefined)
        throw permError(`pool '${String(params["pool"])}' does not exist`);
      if (params["storage"] !== undefined)
        requirePrivs(sim, tokenId, `/storage/${String(params["storage"])}`, [
          "Datastore.AllocateSpace",
        ]);
      if (!sim.tokens.has(tokenId, `/vms/${vmid}`, "VM.Allocate")) throw permError();
      for (const key of driveKeys(params))
        checkDriveAccess(sim, tokenId, params, key, String(params[key]));
      const keys = Object.keys(params).filter((key) => !CREATE_CONTROL.has(key));
      checkKeyPrivileges(sim, tokenId, vmid, keys, params);
      for (const key of driveKeys(params)) checkDriveSyntax(key, String(params[key]));
      const other = sim.cluster.vms.get(vmid);
      if (other !== undefined)
        throw dieError(
          `unable to create VM ${vmid} - VM ${vmid} already exists on node '${other.node}'`,
        );
      // create_and_lock_config: the config exists from now on, holding only the create lock.
      sim.cluster.addVm(Cluster.newVm(vmid, node, { lock: "create" }));
      sim.changed();
      return sim.tasks.start(
        node,
        "qmcreate",
        String(vmid),
        tokenId,
        (ctx) => createWorker(sim, params, ctx),
        () => removeConfig(sim, vmid),
      ).upid;
    },
  },
];
