import { hasPriv } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { NODE, paramError, type Route } from "../http/index.js";
import { dieError } from "../http/pve-error.js";
import { HOST_8_4, nodeUsage } from "../model/host.js";

function uptimeSeconds(startedAt: number | undefined, now: number): number {
  return startedAt === undefined ? 0 : Math.floor((now - startedAt) / 1000);
}

/** `/cluster/resources` rows for VMs: set, node, lock, tags, pool live; the rest lagged. */
export function vmRows(sim: SimContext, tokenId: string, now: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const vm of sim.cluster.vms.values()) {
    if (!hasPriv(sim, tokenId, `/vms/${vm.vmid}`, "VM.Audit")) continue;
    const row: Record<string, unknown> = {
      id: `qemu/${vm.vmid}`,
      vmid: vm.vmid,
      node: vm.node,
      type: "qemu",
    };
    const stats = sim.cluster.listing.visible(vm.vmid, now, sim.options.listingLagMs);
    if (stats === undefined) {
      row["status"] = "unknown";
    } else {
      const running = stats.status !== "stopped";
      Object.assign(row, {
        name: stats.name,
        status: stats.status,
        template: stats.template,
        uptime: running ? uptimeSeconds(stats.uptimeBase, now) : 0,
        maxcpu: stats.maxcpu,
        cpu: running ? 0.01 : 0,
        maxmem: stats.maxmem,
        mem: running ? Math.floor(stats.maxmem / 4) : 0,
        maxdisk: stats.maxdisk,
        disk: 0,
        netin: 0,
        netout: 0,
        diskread: 0,
        diskwrite: 0,
      });
      // 9.x: pvestatd also reports the host's view of the guest's memory.
      if (sim.options.profile.hostPressureInStatus) row["memhost"] = row["mem"];
    }
    const lock = vm.config["lock"];
    if (lock !== undefined) row["lock"] = lock;
    const tags = vm.config["tags"];
    if (tags !== undefined) row["tags"] = tags;
    const pool = sim.cluster.resourcePools.poolOf(vm.vmid);
    if (pool !== undefined) row["pool"] = pool;
    // pve-manager Cluster.pm resources: the CRM's service state, else the requested one.
    const ha = sim.cluster.ha.configured(vm.vmid);
    if (ha !== undefined) row["hastate"] = ha.crmState ?? ha.state;
    rows.push(row);
  }
  return rows.sort((a, b) => Number(a["vmid"]) - Number(b["vmid"]));
}

function nodeRow(
  sim: SimContext,
  tokenId: string,
  name: string,
  full: boolean,
): Record<string, unknown> {
  const node = sim.cluster.nodes.get(name);
  const online = node !== undefined && node.down === undefined;
  const row: Record<string, unknown> = {
    id: `node/${name}`,
    node: name,
    type: "node",
    status: online ? "online" : "offline",
    level: "",
  };
  if (full) row["ssl_fingerprint"] = sim.sslFingerprint;
  if (online && node !== undefined && hasPriv(sim, tokenId, `/nodes/${name}`, "Sys.Audit")) {
    Object.assign(row, nodeUsage(node));
  }
  // Cluster.pm `resources` adds the node's cgroup mode, with or without Sys.Audit.
  if (online && !full) row["cgroup-mode"] = HOST_8_4.cgroupMode;
  return row;
}

export function storageRows(sim: SimContext, tokenId: string): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const node of sim.cluster.nodes.keys()) {
    for (const s of sim.cluster.storagesOn(node)) {
      const path = `/storage/${s.storage}`;
      if (
        !hasPriv(sim, tokenId, path, "Datastore.Audit") &&
        !hasPriv(sim, tokenId, path, "Datastore.AllocateSpace")
      )
        continue;
      rows.push({
        id: `storage/${node}/${s.storage}`,
        storage: s.storage,
        node,
        type: "storage",
        status: "available",
        plugintype: s.type,
        content: [...s.content].sort().join(","),
        shared: s.shared ? 1 : 0,
        disk: 0,
        maxdisk: s.totalBytes ?? 100 * 1024 ** 3,
      });
    }
  }
  return rows;
}

export const clusterRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/version",
    params: {},
    handler: ({ sim }) => ({ ...sim.options.profile.version }),
  },
  {
    method: "GET",
    path: "/nodes/{node}/version",
    params: { node: NODE },
    handler: ({ sim }) => ({ ...sim.options.profile.version }),
  },
  {
    method: "GET",
    path: "/cluster/resources",
    params: { type: { type: "string", optional: true, enum: ["vm", "storage", "node", "sdn"] } },
    handler: ({ sim, tokenId, params }) => {
      const now = Date.now();
      const type = params["type"];
      const rows: Record<string, unknown>[] = [];
      if (type === undefined || type === "node") {
        for (const name of sim.cluster.nodes.keys()) rows.push(nodeRow(sim, tokenId, name, false));
      }
      if (type === undefined || type === "storage") rows.push(...storageRows(sim, tokenId));
      if (type === undefined || type === "vm") rows.push(...vmRows(sim, tokenId, now));
      return rows;
    },
  },
  {
    method: "GET",
    path: "/cluster/nextid",
    params: {
      vmid: { type: "integer", optional: true, format: "pve-vmid", min: 100, max: 999999999 },
    },
    handler: ({ sim, params }) => {
      const wanted = params["vmid"];
      if (wanted !== undefined) {
        if (sim.cluster.vms.has(Number(wanted)))
          throw paramError({ vmid: `VM ${wanted} already exists` });
        return String(wanted);
      }
      const free = sim.cluster.nextFreeVmid();
      if (free === undefined) throw dieError("unable to get any free VMID in range [100, 1000000]");
      // PVE returns the id as a JSON string although the schema says integer.
      return String(free);
    },
  },
  {
    method: "GET",
    path: "/nodes",
    params: {},
    handler: ({ sim, tokenId }) =>
      [...sim.cluster.nodes.keys()].map((name) => nodeRow(sim, tokenId, name, true)),
  },
];
