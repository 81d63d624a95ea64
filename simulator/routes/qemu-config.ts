import { requireAnyPriv } from "../auth/check.js";
import { checkKeyPrivileges } from "./config-privileges.js";
import type { SimContext } from "../context.js";
import {
  configMissing,
  dieError,
  NODE,
  paramError,
  splitList,
  VMID,
  type Params,
  type Route,
} from "../http/index.js";
import { sshKeysProblem } from "../model/cloudinit.js";
import { createDrive, DriveError } from "../model/create-drive.js";
import { renderNic } from "../model/nic-format.js";
import { hookscriptProblem } from "../model/hookscript.js";
import { applyChange, cleanupPending } from "../model/pending.js";
import { clampCpuUnits } from "../model/pve-features.js";
import { hashPassword } from "../model/sha-crypt.js";
import type { VmConfig, VmRecord } from "../model/types.js";
import {
  configDigest,
  DRIVE_KEY,
  hotPlugs,
  mediaTypeChange,
  memoryMiB,
  normaliseTags,
  unset,
} from "../model/vm-config.js";
import { ANY_CONFIG_PRIV, CONFIG_KEYS, configFamily, releaseProblems } from "./config-schema.js";

const CONTROL = new Set([
  "node",
  "vmid",
  "delete",
  "revert",
  "force",
  "digest",
  "skiplock",
  "background_delay",
]);

/** Per-key checks that run before the update (check_vm_modify_config_perm). */
function checkKeyPermissions(sim: SimContext, tokenId: string, vmid: number, params: Params): void {
  const keys = Object.keys(params).filter((key) => !CONTROL.has(key));
  const deletes = splitList(String(params["delete"] ?? ""));
  checkKeyPrivileges(sim, tokenId, vmid, [...keys, ...deletes], params);
}

/** The request's values a stored value is checked against: the config and the pending ones. */
function settled(vm: VmRecord): VmConfig[] {
  const pending: VmConfig = {};
  for (const [key, value] of Object.entries(vm.pending)) if (value !== null) pending[key] = value;
  return [vm.config, pending];
}

/**
 * Turns a request value into what PVE stores: NICs and drives parsed and printed again (MACs
 * filled in, disks and the cloud-init volume allocated), tags normalised, the password hashed.
 */
function storedValue(
  sim: SimContext,
  vm: VmRecord,
  key: string,
  value: string | number,
): string | number {
  if (key === "cpuunits") return clampCpuUnits(Number(value), sim.options.profile.pveVersion);
  if (typeof value === "number") return value;
  if (/^net\d+$/.test(key)) return renderNic(value);
  if (key === "tags") return normaliseTags(value);
  if (key === "cipassword") return hashPassword(value);
  if (!DRIVE_KEY.test(key) || key.startsWith("unused")) return value;
  const target = {
    cluster: sim.cluster,
    node: vm.node,
    vmid: vm.vmid,
    release: sim.options.profile.pveVersion,
    others: settled(vm),
    created: [],
  };
  try {
    return createDrive(target, key, value);
  } catch (err) {
    if (err instanceof DriveError) throw dieError(err.message);
    throw err;
  }
}

/** update_vm's check that the balloon target stays within the (pending) memory. */
function checkBalloon(vm: VmRecord, params: Params): void {
  if (params["memory"] === undefined && params["balloon"] === undefined) return;
  const pick = (key: string): string | number | undefined =>
    params[key] ?? vm.pending[key] ?? vm.config[key] ?? undefined;
  const memory = memoryMiB(pick("memory") ?? 512);
  const balloon = Number(pick("balloon") ?? 0);
  if (balloon > memory)
    throw dieError("balloon value too large (must be smaller than assigned memory)");
}

/** The hot-plug step for one key; its error text when PVE's hot-plug code refuses it. */
function hotplugProblem(
  vm: VmRecord,
  key: string,
  value: string | number | null,
): string | undefined {
  if (DRIVE_KEY.test(key) && mediaTypeChange(vm.config[key], value))
    return "unable to change media type";
  if (key !== "vcpus" || value === null) return undefined;
  const max = Number(vm.config["sockets"] ?? 1) * Number(vm.config["cores"] ?? 1);
  return Number(value) > max ? "you can't add more vcpus than maxcpus" : undefined;
}

/** The body of update_vm: runs under the VM's flock, synchronously (PUT) or in a task (POST). */
async function updateConfig(sim: SimContext, params: Params): Promise<void> {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const release = await sim.flocks.acquire(vmid, true, 10_000);
  try {
    const vm = sim.cluster.vmOn(node, vmid);
    if (vm === undefined) throw configMissing(node, vmid);
    if (params["digest"] !== undefined && params["digest"] !== configDigest(vm)) {
      throw dieError("checksum mismatch (file change by other user?)");
    }
    const lock = vm.config["lock"];
    if (lock !== undefined) throw dieError(`VM is locked (${lock})`);
    checkBalloon(vm, params);
    if (params["hookscript"] !== undefined) {
      const problem = hookscriptProblem(sim.cluster, node, String(params["hookscript"]));
      if (problem !== undefined) throw dieError(problem);
    }
    const deletes = splitList(String(params["delete"] ?? "")).map((key) =>
      key === "cdrom" ? "ide2" : key,
    );
    for (const key of deletes) checkRemovable(vm, key);
    for (const key of splitList(String(params["revert"] ?? ""))) unset(vm.pending, key);
    // Like update_vm, every change is written to the pending section first, then applied.
    const modified = new Set<string>();
    for (const key of deletes) {
      if (vm.config[key] === undefined && vm.pending[key] === undefined) continue;
      vm.pending[key] = null;
      modified.add(key);
    }
    for (const [key, value] of Object.entries(params)) {
      if (CONTROL.has(key)) continue;
      const target = key === "cdrom" ? "ide2" : key;
      vm.pending[target] = storedValue(sim, vm, target, value);
      modified.add(target);
    }
    // A stopped VM takes every pending change; a running one tries only this request's keys.
    const running = vm.status === "running";
    const force = params["force"] === 1;
    const errors: Record<string, string> = {};
    for (const [key, value] of Object.entries(vm.pending)) {
      if (running && !modified.has(key)) continue;
      const live = !running || hotPlugs(key, value, vm.config);
      if (!live) continue;
      const problem = running ? hotplugProblem(vm, key, value) : undefined;
      if (problem !== undefined) {
        errors[key] = `hotplug problem - ${problem}`;
        continue;
      }
      applyChange(sim.cluster, vm, key, value, force);
      unset(vm.pending, key);
    }
    cleanupPending(vm);
    sim.cluster.observe(vm);
    sim.changed();
    if (Object.keys(errors).length > 0) throw paramError(errors);
  } finally {
    release();
  }
}

/** update_vm refuses to remove a disk (or an unused volume) of a protected VM. */
function checkRemovable(vm: VmRecord, key: string): void {
  if (vm.config["protection"] !== 1) return;
  const value = vm.config[key];
  if (/^unused\d+$/.test(key) && value !== undefined)
    throw dieError(`can't remove unused disk '${String(value)}' - protection mode enabled`);
  if (DRIVE_KEY.test(key) && value !== undefined)
    throw dieError(`can't remove drive '${key}' - protection mode enabled`);
}

/** Synchronous checks shared by PUT and POST (before any lock is taken). */
function precheck(sim: SimContext, tokenId: string, params: Params): void {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const problems = releaseProblems(params, sim.options.profile.pveVersion);
  if (Object.keys(problems).length > 0) throw paramError(problems);
  // update_vm checks the keys with ssh-keygen before anything else.
  const sshkeys = params["sshkeys"];
  const keyProblem = sshkeys === undefined ? undefined : sshKeysProblem(String(sshkeys));
  if (keyProblem !== undefined) throw dieError(keyProblem);
  checkKeyPermissions(sim, tokenId, vmid, params);
  const keys = Object.keys(params).filter((key) => !CONTROL.has(key));
  const deletes = splitList(String(params["delete"] ?? ""));
  if (params["force"] !== undefined && params["delete"] === undefined) {
    throw paramError({ force: "unable to use 'force' without 'delete'" });
  }
  for (const key of deletes) {
    if (CONFIG_KEYS[key] === undefined && configFamily(key) === undefined) {
      throw paramError({ delete: `unknown option '${key}'` });
    }
    if (keys.includes(key))
      throw paramError({ delete: `you can't use '-${key}' and -delete ${key}' at the same time` });
  }
  for (const key of splitList(String(params["revert"] ?? ""))) {
    if (CONFIG_KEYS[key] === undefined && configFamily(key) === undefined)
      throw paramError({ revert: `unknown option '${key}'` });
    if (keys.includes(key))
      throw paramError({ revert: `you can't use '-${key}' and '-revert ${key}' at the same time` });
  }
  if (keys.length === 0 && deletes.length === 0 && params["revert"] === undefined) {
    throw dieError("no options specified");
  }
  if (sim.cluster.vmOn(node, vmid) === undefined) throw configMissing(node, vmid);
}

const CONFIG_PARAMS = {
  ...CONFIG_KEYS,
  node: NODE,
  vmid: VMID,
  delete: { type: "string", optional: true, format: "pve-configid-list" },
  revert: { type: "string", optional: true, format: "pve-configid-list" },
  force: { type: "boolean", optional: true },
  digest: { type: "string", optional: true, maxLength: 40 },
  skiplock: { type: "boolean", optional: true, rootOnly: true },
} as const;

const anyConfigPriv = (
  sim: SimContext,
  input: { tokenId: string; raw: Record<string, unknown> },
): void => requireAnyPriv(sim, input.tokenId, `/vms/${String(input.raw["vmid"])}`, ANY_CONFIG_PRIV);

export const qemuConfigRoutes: Route<SimContext>[] = [
  {
    method: "PUT",
    path: "/nodes/{node}/qemu/{vmid}/config",
    params: CONFIG_PARAMS,
    dynamicParam: configFamily,
    permission: anyConfigPriv,
    handler: async ({ sim, tokenId, params }) => {
      precheck(sim, tokenId, params);
      await updateConfig(sim, params);
      return null;
    },
  },
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/config",
    params: {
      ...CONFIG_PARAMS,
      background_delay: { type: "integer", optional: true, min: 1, max: 30 },
    },
    dynamicParam: configFamily,
    permission: anyConfigPriv,
    handler: async ({ sim, tokenId, params }) => {
      precheck(sim, tokenId, params);
      const vmid = String(params["vmid"]);
      const task = sim.tasks.start(
        String(params["node"]),
        "qmconfig",
        vmid,
        tokenId,
        async (ctx) => {
          await ctx.wait(1);
          await updateConfig(sim, params);
        },
      );
      const delay = params["background_delay"];
      if (delay === undefined) return task.upid;
      const deadline = Date.now() + Number(delay) * 1000;
      while (task.status === "running" && Date.now() < deadline) await sim.tasks.sleep(20);
      if (task.status === "running") return task.upid;
      if (task.exitstatus === "OK") return null;
      throw dieError(`failed to update VM ${vmid}: ${task.exitstatus ?? ""}`);
    },
  },
];
