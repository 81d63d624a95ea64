import { hasPriv, perm, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { configMissing, NODE, paramError, VMID, type Route } from "../http/index.js";
import { configDigest, withPending } from "../model/vm-config.js";
import { vmCurrentStatus, vmFullStatus, vmListRow } from "../model/vm-status.js";

export const qemuReadRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/qemu",
    params: { node: NODE, full: { type: "boolean", optional: true } },
    handler: ({ sim, tokenId, params }) => {
      const now = Date.now();
      return [...sim.cluster.vms.values()]
        .filter(
          (vm) =>
            vm.node === params["node"] && hasPriv(sim, tokenId, `/vms/${vm.vmid}`, "VM.Audit"),
        )
        .map((vm) =>
          params["full"] === 1
            ? vmFullStatus(vm, now, sim.options.profile)
            : vmListRow(vm, now, sim.options.profile),
        );
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/config",
    params: {
      node: NODE,
      vmid: VMID,
      current: { type: "boolean", optional: true },
      snapshot: { type: "string", optional: true, maxLength: 40 },
    },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      if (params["current"] === 1 && params["snapshot"] !== undefined) {
        throw paramError({
          snapshot: "cannot use 'snapshot' parameter with 'current'",
          current: "cannot use 'snapshot' parameter with 'current'",
        });
      }
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      if (params["snapshot"] !== undefined)
        throw paramError({ snapshot: `snapshot '${params["snapshot"]}' does not exist` });
      const config = params["current"] === 1 ? { ...vm.config } : withPending(vm);
      if (config["cipassword"] !== undefined) config["cipassword"] = "**********";
      return { ...config, digest: configDigest(vm) };
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/pending",
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      const keys = new Set([...Object.keys(vm.config), ...Object.keys(vm.pending)]);
      return [...keys].sort().map((key) => {
        const row: Record<string, unknown> = { key };
        if (vm.config[key] !== undefined) row["value"] = vm.config[key];
        const pending = vm.pending[key];
        if (pending === null) row["delete"] = 1;
        else if (pending !== undefined) row["pending"] = pending;
        // The password never leaves the host (cloud-init keys apply at once, so none is pending).
        if (key === "cipassword" && row["value"] !== undefined) row["value"] = "**********";
        return row;
      });
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/status/current",
    params: { node: NODE, vmid: VMID },
    permission: perm("VM.Audit", vmPath),
    handler: ({ sim, params }) => {
      const node = String(params["node"]);
      const vmid = Number(params["vmid"]);
      const vm = sim.cluster.vmOn(node, vmid);
      if (vm === undefined) throw configMissing(node, vmid);
      return vmCurrentStatus(
        vm,
        Date.now(),
        sim.options.profile,
        sim.cluster.ha.configured(vm.vmid),
      );
    },
  },
];
