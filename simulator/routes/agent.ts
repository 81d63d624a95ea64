import { requireAnyPriv, vmPath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { configMissing, dieError, NODE, VMID, type Params, type Route } from "../http/index.js";
import type { VmRecord } from "../model/types.js";
import { agentEnabled } from "../model/vm-config.js";

const STATS = {
  "rx-bytes": 0,
  "rx-dropped": 0,
  "rx-errs": 0,
  "rx-packets": 0,
  "tx-bytes": 0,
  "tx-dropped": 0,
  "tx-errs": 0,
  "tx-packets": 0,
};

/** assert_agent_available, in PVE's order, then the answering guest. */
export function answeringGuest(sim: SimContext, params: Params): VmRecord {
  const node = String(params["node"]);
  const vmid = Number(params["vmid"]);
  const vm = sim.cluster.vmOn(node, vmid);
  if (vm === undefined) throw configMissing(node, vmid);
  if (vm.config["agent"] === undefined) throw dieError("No QEMU guest agent configured");
  if (vm.status !== "running") throw dieError(`VM ${vmid} is not running`);
  const up = vm.guest.agentUpAt;
  if (!agentEnabled(vm.config) || up === undefined || up > Date.now()) {
    throw dieError("QEMU guest agent is not running");
  }
  return vm;
}

/** VM.Monitor up to 8.x; 9.x split it into the VM.GuestAgent.* privileges. */
export const agentPermission = (
  sim: SimContext,
  input: { tokenId: string; raw: Record<string, unknown> },
) => requireAnyPriv(sim, input.tokenId, vmPath(input.raw), sim.options.profile.agentPrivileges);

export const agentRoutes: Route<SimContext>[] = [
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces",
    params: { node: NODE, vmid: VMID },
    permission: agentPermission,
    handler: ({ sim, params }) => {
      const vm = answeringGuest(sim, params);
      const lo = {
        name: "lo",
        "hardware-address": "00:00:00:00:00:00",
        "ip-addresses": [
          { "ip-address-type": "ipv4", "ip-address": "127.0.0.1", prefix: 8 },
          { "ip-address-type": "ipv6", "ip-address": "::1", prefix: 128 },
        ],
        statistics: STATS,
      };
      const nics = (vm.guest.interfaces ?? []).map((nic) => ({ ...nic, statistics: STATS }));
      return { result: [lo, ...nics] };
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/agent/get-host-name",
    params: { node: NODE, vmid: VMID },
    permission: agentPermission,
    handler: ({ sim, params }) => {
      const vm = answeringGuest(sim, params);
      return { result: { "host-name": vm.guest.hostname ?? "localhost" } };
    },
  },
];
