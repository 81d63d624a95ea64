import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { simulatorContext } from "../../../support/test-context";

/** The requests one create sends, counted from the simulator's request log over HTTP. */

const resolve = (name: string, extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "create", name },
      node: "pve1",
      template: 9000,
      cores: 1,
      memory: 512,
      ...extra,
    },
  ).inputs as ResolvedInputs;

describe("create (over HTTP, counting requests)", () => {
  let sim: Simulator;
  let ctx: OperationContext;

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 0, guestBootMs: 600 });
    ctx = simulatorContext(sim);
  });
  afterAll(() => sim.close());

  beforeEach(() => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    sim.clearRequestLog();
    return () => vi.restoreAllMocks();
  });

  /** `METHOD path` of each request since the test began, tasks polls left out. */
  const requests = () =>
    sim.requestLog.map((r) => `${r.method} ${r.path}`).filter((r) => !/\/tasks(\/|$)/.test(r));

  it("starts a VM it has just cloned without reading its status first (a fresh clone is stopped)", async () => {
    const created = await createVm(ctx, resolve("fresh"));
    const sent = requests();
    const cloned = sent.findIndex((r) => r.endsWith("/clone"));
    const started = sent.indexOf(`POST /nodes/pve1/qemu/${created.vmid}/status/start`);
    expect(cloned).toBeGreaterThanOrEqual(0);
    expect(started).toBeGreaterThan(cloned);
    expect(sent.slice(cloned, started).filter((r) => r.endsWith("/status/current"))).toEqual([]);
    expect(created.status).toBe("running");
    await deleteVm(ctx, created);
    expect([...sim.model.vms.keys()]).not.toContain(created.vmid);
  });

  it("reports the addresses the guest agent gave at the end of the wait, without asking it again", async () => {
    const created = await createVm(ctx, resolve("agent"));
    const sent = requests();
    const agent = `GET /nodes/pve1/qemu/${created.vmid}/agent/network-get-interfaces`;
    // The last config write marks the VM complete, after the wait for its address.
    const marked = sent.lastIndexOf(`PUT /nodes/pve1/qemu/${created.vmid}/config`);
    expect(sent.indexOf(agent)).toBeGreaterThanOrEqual(0);
    expect(sent.indexOf(agent)).toBeLessThan(marked);
    expect(sent.slice(marked)).not.toContain(agent);
    expect(created.ipv4Addresses).toEqual([expect.stringMatching(/^10\.10\.\d+\.\d+$/)]);
    await deleteVm(ctx, created);
  });

  it("configures a fresh clone in place with PUT: no worker task to wait for", async () => {
    const created = await createVm(ctx, resolve("in-place"));
    const configWrites = requests().filter((r) => r.endsWith(`/qemu/${created.vmid}/config`));
    // The settings and seed, then the complete mark.
    expect(configWrites).toEqual([
      `PUT /nodes/pve1/qemu/${created.vmid}/config`,
      `PUT /nodes/pve1/qemu/${created.vmid}/config`,
    ]);
    expect(
      [...sim.model.tasks.values()].filter(
        (t) => t.type === "qmconfig" && t.id === String(created.vmid),
      ),
    ).toEqual([]);
    await deleteVm(ctx, created);
  });

  it("configures a fresh clone through PVE's worker task when the write allocates a disk", async () => {
    const created = await createVm(
      ctx,
      resolve("new-disk", {
        disks: [
          { interface: "scsi0", sizeGiB: 4 },
          { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },
        ],
      }),
    );
    const configWrites = requests().filter((r) => r.endsWith(`/qemu/${created.vmid}/config`));
    expect(configWrites[0]).toBe(`POST /nodes/pve1/qemu/${created.vmid}/config`);
    expect(sim.model.vms.get(created.vmid)?.config["scsi1"]).toMatch(/^local-lvm:vm-\d+-disk-\d+/);
    await deleteVm(ctx, created);
  });

  it("reads the status before starting a VM it resumes, which may be running already", async () => {
    const inputs = resolve("resumed");
    const first = await createVm(ctx, { ...inputs, started: false });
    // An interrupted create: the VM exists with the creating mark; anyone may have started it since.
    const vm = sim.model.vms.get(first.vmid);
    if (vm === undefined) throw new Error("the VM is gone");
    vm.config["description"] = String(vm.config["description"]).replace("complete", "creating");
    sim.clearRequestLog();
    const resumed = await createVm(ctx, inputs);
    expect(resumed.vmid).toBe(first.vmid);
    const sent = requests();
    const started = sent.indexOf(`POST /nodes/pve1/qemu/${first.vmid}/status/start`);
    expect(started).toBeGreaterThan(0);
    expect(sent.slice(0, started)).toContain(`GET /nodes/pve1/qemu/${first.vmid}/status/current`);
    await deleteVm(ctx, resumed);
  });

  it("asks the guest agent fewer times for a second guest of a template once the first has booted", async () => {
    // A provider process of its own, which has seen no guest boot yet.
    const fresh = simulatorContext(sim);
    const agentAsks = async (name: string) => {
      sim.clearRequestLog();
      const created = await createVm(fresh, resolve(name));
      const asks = requests().filter((r) => r.endsWith("/agent/network-get-interfaces")).length;
      return { created, asks };
    };
    const first = await agentAsks("boot-1");
    const second = await agentAsks("boot-2");
    expect(first.asks).toBeGreaterThanOrEqual(2);
    expect(second.asks).toBeLessThan(first.asks);
    expect(second.created.ipv4Addresses).toHaveLength(1);
    await deleteVm(fresh, first.created);
    await deleteVm(fresh, second.created);
  });
});
