/**
 * The guest agent commands clients use to wait for a guest and identify it: qemu-server
 * `PVE/API2/Qemu/Agent.pm` registers `ping` as POST and the `get-*` reads as GET, each answering
 * `{ result: … }` with what QGA returned.
 */
import type { SimContext } from "../context.js";
import { NODE, VMID, type Route } from "../http/index.js";
import { agentPermission, answeringGuest } from "./agent.js";

/** What the simulated guest image's agent reports (`guest-get-osinfo`): a Debian 12 cloud image. */
const OS_INFO = {
  id: "debian",
  name: "Debian GNU/Linux",
  "pretty-name": "Debian GNU/Linux 12 (bookworm)",
  version: "12 (bookworm)",
  "version-id": "12",
  "kernel-release": "6.1.0-31-cloud-amd64",
  "kernel-version": "#1 SMP PREEMPT_DYNAMIC Debian 6.1.128-1 (2025-02-07)",
  machine: "x86_64",
};

const VM_PARAMS = { node: NODE, vmid: VMID } as const;

export const agentInfoRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/qemu/{vmid}/agent/ping",
    params: VM_PARAMS,
    permission: agentPermission,
    handler: ({ sim, params }) => {
      answeringGuest(sim, params);
      return { result: {} };
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/agent/get-osinfo",
    params: VM_PARAMS,
    permission: agentPermission,
    handler: ({ sim, params }) => {
      answeringGuest(sim, params);
      return { result: { ...OS_INFO } };
    },
  },
  {
    method: "GET",
    path: "/nodes/{node}/qemu/{vmid}/agent/get-time",
    params: VM_PARAMS,
    permission: agentPermission,
    handler: ({ sim, params }) => {
      answeringGuest(sim, params);
      // guest-get-time: nanoseconds since the epoch, as one integer.
      return { result: Date.now() * 1_000_000 };
    },
  },
];
