import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api";
import { waitForTask } from "../../../../provider/pve/tasks/task-wait";
import { parseConnectionConfig } from "../../../../provider/pve/config";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../../../provider/vm/state/vm-state";
import { startSimulator, type Simulator } from "../../../../simulator";
import { simulatorContext } from "../../../support/test-context";

const inputs = (i: number) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "refresh", name: `vm-${i}` },
      // Half on each node, each cloned from the template on its own node.
      node: i % 2 === 0 ? "pve1" : "pve2",
      template: i % 2 === 0 ? 9000 : 9001,
      cores: 1,
    },
  ).inputs as ResolvedInputs;

let sim: Simulator | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sim?.close();
  sim = undefined;
});

async function fleet(count: number): Promise<{ ctx: OperationContext; vms: VmState[] }> {
  sim = await startSimulator({ defaultTaskMs: 20, guestBootMs: 20 });
  const ctx = simulatorContext(sim);
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  const vms = await Promise.all(Array.from({ length: count }, (_, i) => createVm(ctx, inputs(i))));
  return { ctx, vms };
}

/** A refresh as a new provider process runs it: no listing cached, every VM read at once. */
async function refresh(ctx: OperationContext, vms: readonly VmState[]) {
  ctx.api.invalidateClusterVms?.();
  ctx.api.invalidateNodeVms?.();
  sim?.clearRequestLog();
  return Promise.all(vms.map((vm) => readVm(ctx, vm)));
}

/** Someone else's client: its changes go around the provider's listings. */
function otherClient(): HttpProxmoxApi {
  return new HttpProxmoxApi({
    connection: parseConnectionConfig(
      { endpoint: sim?.url, apiToken: sim?.apiToken, caCert: sim?.caCertPem },
      { env: {} },
    ),
  });
}

const requests = () =>
  (sim?.requestLog ?? []).map(
    (r) => `${r.method} ${r.path.replace(/\/qemu\/\d+\//, "/qemu/{vmid}/")}`,
  );
const count = (kind: string) => requests().filter((r) => r === kind).length;

describe("readVm against the simulator", () => {
  it("refreshes 6 VMs on two nodes with one config and one agent read each, one cluster listing and one listing per node", async () => {
    const { ctx, vms } = await fleet(6);
    const read = await refresh(ctx, vms);

    expect(read.map((vm) => vm?.status)).toEqual(Array(6).fill("running"));
    expect(count("GET /cluster/resources")).toBe(1);
    expect(count("GET /nodes/pve1/qemu")).toBe(1);
    expect(count("GET /nodes/pve2/qemu")).toBe(1);
    expect(count("GET /nodes/pve1/qemu/{vmid}/pending")).toBe(3);
    expect(count("GET /nodes/pve2/qemu/{vmid}/pending")).toBe(3);
    expect(requests().filter((r) => r.endsWith("/agent/network-get-interfaces"))).toHaveLength(6);
    expect(requests().filter((r) => r.endsWith("/status/current"))).toEqual([]);
    expect(requests()).toHaveLength(2 * 6 + 3);
  });

  it("still sees a VM stopped and reconfigured out of band, and leaves the others as they are", async () => {
    const { ctx, vms } = await fleet(4);
    const [changed, untouched] = [vms[0], vms[2]];
    if (changed === undefined || untouched === undefined) throw new Error("no fleet");
    const other = otherClient();
    await waitForTask(other, "pve1", await other.stopVm("pve1", changed.vmid), {
      budgetMs: 30_000,
    });
    const upid = await other.updateVmConfig("pve1", changed.vmid, { set: { cores: 3 } });
    if (upid) await waitForTask(other, "pve1", upid, { budgetMs: 30_000 });

    const [read, , readUntouched] = await refresh(ctx, vms);

    expect(read).toMatchObject({ status: "stopped", started: false, cores: 3, ipv4Addresses: [] });
    expect(diffVm({ ...read }, inputs(0))).toMatchObject({ changes: true });
    expect(readUntouched).toEqual(untouched);
  });
});
