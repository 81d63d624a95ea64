import { perm, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { configMissing, dieError, NODE, VMID, type Route } from "../http/index.js";
import { CLOUDINIT_OPTIONS, dumpCloudinit } from "../model/cloudinit.js";
import type { VmRecord } from "../model/types.js";

/**
 * The cloud-init endpoints of qemu-server `PVE/API2/Qemu.pm`: `cloudinit_pending` (GET
 * …/cloudinit), `cloudinit_generated_config_dump` (GET …/cloudinit/dump) and `cloudinit_update`
 * (PUT …/cloudinit).
 */

function vmOf(sim: SimContext, node: string, vmid: number): VmRecord {
  const vm = sim.cluster.vmOn(node, vmid);
  if (vm === undefined) throw configMissing(node, vmid);
  return vm;
}

const mask = (key: string, value: string | number): string | number =>
  key === "cipassword" ? "**********" : value;

/**
 * cloudinit_pending: each option with the value the drive was generated from and, where it
 * changed since, the new value as `pending`; options added since only `pending`, removed ones
 * `delete: 1`.
 */
function pendingView(vm: VmRecord): Record<string, unknown>[] {
  const changes = vm.cloudinitChanges ?? {};
  const rows: Record<string, unknown>[] = [];
  const tracked = (key: string): boolean =>
    (CLOUDINIT_OPTIONS as readonly string[]).includes(key) || /^ipconfig\d+$/.test(key);
  for (const key of Object.keys(vm.config).filter(tracked).sort()) {
    const value = vm.config[key];
    if (value === undefined) continue;
    const before = changes[key];
    if (before === null) rows.push({ key, pending: mask(key, value) });
    else if (before !== undefined)
      rows.push({ key, value: mask(key, before), pending: mask(key, value) });
    else rows.push({ key, value: mask(key, value) });
  }
  for (const [key, before] of Object.entries(changes))
    if (before !== null && vm.config[key] === undefined) rows.push({ key, delete: 1 });
  return rows;
}

export const qemuCloudinitRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/cloudinit",
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) =>
      pendingView(vmOf(sim, String(params["node"]), Number(params["vmid"]))),
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/cloudinit/dump",
    params: {
      node: NODE,
      vmid: VMID,
      type: { type: "string", enum: ["user", "network", "meta"] },
    },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) => {
      const vm = vmOf(sim, String(params["node"]), Number(params["vmid"]));
      const release = sim.options.profile.pveVersion;
      return dumpCloudinit(vm.config, vm.vmid, String(params["type"]), release);
    },
  },
  {
    method: "PUT",
    path: "/nodes/{node}/qemu/{vmid}/cloudinit",
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Config.Cloudinit", vmPath),
    handler: async ({ sim, params }) => {
      const vmid = Number(params["vmid"]);
      const release = await sim.flocks.acquire(vmid, true, 10_000);
      try {
        const vm = vmOf(sim, String(params["node"]), vmid);
        const lock = vm.config["lock"];
        if (lock !== undefined) throw dieError(`VM is locked (${lock})`);
        // vmconfig_update_cloudinit_drive: the drive is written anew; the recorded changes go.
        delete vm.cloudinitChanges;
        sim.changed();
        return null;
      } finally {
        release();
      }
    },
  },
];
