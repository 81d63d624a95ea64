import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { probeOrder } from "../../../../provider/vm/identity";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm, PROBE_WINDOW } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { namingOf, type ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";

/** The create path over HTTP against the simulator, with faults on the requests it sends. */

const resolve = (name: string, extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "retry", name },
      node: "pve1",
      template: 9000,
      cores: 1,
      memory: 512,
      ...extra,
    },
  ).inputs as ResolvedInputs;

const qemuVms = (sim: Simulator) =>
  [...sim.model.vms.values()].filter((vm) => vm.config["template"] !== 1);

describe("clone (over HTTP, with the retrying API)", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  let lines: string[];

  beforeAll(async () => {
    sim = await startSimulator({ listingLagMs: 0 });
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = buildContext({ get: (key) => config[key] });
  });
  afterAll(() => sim.close());

  beforeEach(() => {
    lines = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    return () => vi.restoreAllMocks();
  });

  it("creates all of 5 concurrent VMs when one listing is answered 596", async () => {
    sim.faults.failRequests(
      { method: "GET", path: "^/cluster/resources$" },
      596,
      "Connection timed out",
    );
    const inputs = [1, 2, 3, 4, 5].map((n) => resolve(`many-${n}`, { started: false }));
    const created = await Promise.all(inputs.map((i) => createVm(ctx, i)));
    expect(new Set(created.map((vm) => vm.vmid)).size).toBe(5);
    expect(qemuVms(sim)).toHaveLength(5);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^pulumi-proxmox: GET \/cluster\/resources: 596 Connection timed out, retrying \(attempt 2 of 6, in \d\.\d s\)$/,
      ),
    );
    await Promise.all(created.map((vm) => deleteVm(ctx, vm)));
    expect(qemuVms(sim)).toEqual([]);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
  });

  it("creates exactly one VM when the clone POST's connection is dropped", async () => {
    sim.faults.dropRequests({ method: "POST", path: "^/nodes/pve1/qemu/9000/clone$" });
    const created = await createVm(ctx, resolve("dropped", { started: false }));
    expect(qemuVms(sim).map((vm) => vm.vmid)).toEqual([created.vmid]);
    expect(lines).toContainEqual(
      expect.stringContaining(
        `VM ${created.vmid} on pve1: the clone request got no answer (NETWORK) and no VM of this ` +
          `resource is at VMID ${created.vmid}; sending it again to the same VMID (attempt 2 of 3)`,
      ),
    );
    await deleteVm(ctx, created);
    expect(qemuVms(sim)).toEqual([]);
  });

  it("creates exactly one VM when the clone POST took effect but its answer was lost", async () => {
    sim.faults.loseAnswers({ method: "POST", path: "^/nodes/pve1/qemu/9000/clone$" });
    const logStart = sim.requestLog.length;
    const created = await createVm(ctx, resolve("answer-lost", { started: false }));
    expect(qemuVms(sim).map((vm) => vm.vmid)).toEqual([created.vmid]);
    const clonePosts = sim.requestLog
      .slice(logStart)
      .filter((entry) => entry.method === "POST" && /\/qemu\/9000\/clone$/.test(entry.path));
    expect(clonePosts).toHaveLength(1);
    expect(lines.some((line) => /sending it again/.test(line))).toBe(false);
    await deleteVm(ctx, created);
    expect(qemuVms(sim)).toEqual([]);
    expect(sim.model.volumes("pve1", "local")).toEqual([]);
  });

  it("probes on when another stack's clone holds the target VMID's file lock", async () => {
    const inputs = resolve("contended", { started: false, vmidRange: { min: 20000, max: 20009 } });
    const probe = probeOrder(namingOf(inputs).identity, inputs.vmidRange, PROBE_WINDOW);
    const first = probe[0] ?? 0;
    // Another stack's clone to the same VMID holds its flock past PVE's 1 s lock wait.
    const held = sim.faults.holdFileLock(first, 3_000);
    const created = await createVm(ctx, inputs);
    await held;
    expect(created.vmid).toBe(probe[1]);
    expect(qemuVms(sim).map((vm) => vm.vmid)).toEqual([probe[1]]);
    expect(lines).toContainEqual(
      `pulumi-proxmox: VM ${first} on pve1: another clone holds VMID ${first} (TASK_FAILED); ` +
        "nothing of this resource is there, trying the next VMID",
    );
    await deleteVm(ctx, created);
    expect(qemuVms(sim)).toEqual([]);
  });

  it("names the target VMID and node when a clone task fails for another reason", async () => {
    sim.faults.failTasks({ type: "qmclone" }, "clone failed: out of space");
    const error = await createVm(ctx, resolve("no-space", { started: false })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "TASK_FAILED", context: { node: "pve1" } });
    const vmid = (error as { context: { vmid: number } }).context.vmid;
    expect(vmid).not.toBe(9000);
    expect((error as Error).message).toMatch(
      new RegExp(`^VM ${vmid} on pve1: cloning template 9000 \\(node pve1\\) failed: `),
    );
    expect(qemuVms(sim)).toEqual([]);
  });
});

describe("clone with proxmox:heavyTasksPerNode", () => {
  it("runs at most that many clones at once on a node, and every create still lands", async () => {
    const sim = await startSimulator({ listingLagMs: 0, taskDurationsMs: { qmclone: 300 } });
    try {
      const config: Record<string, string> = {
        "proxmox:endpoint": sim.url,
        "proxmox:apiToken": sim.apiToken,
        "proxmox:caCert": sim.caCertPem,
        "proxmox:heavyTasksPerNode": "1",
      };
      const ctx = buildContext({ get: (key) => config[key] });
      const lines: string[] = [];
      vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
      let most = 0;
      const sampler = setInterval(() => {
        const running = [...sim.model.tasks.values()].filter(
          (t) => t.type === "qmclone" && t.node === "pve1" && t.status === "running",
        ).length;
        most = Math.max(most, running);
      }, 5);
      const inputs = [1, 2, 3].map((n) => resolve(`slot-${n}`, { started: false }));
      const created = await Promise.all(inputs.map((i) => createVm(ctx, i))).finally(() =>
        clearInterval(sampler),
      );
      expect(most).toBe(1);
      // The two creates that queued say so, and then how long they waited.
      const waiting = lines.filter((line) => line.includes("waiting for a heavy-task slot"));
      expect(waiting).toHaveLength(2);
      expect(waiting[0]).toMatch(
        /^pulumi-proxmox: slot-\d-\w+: cloning template 9000: waiting for a heavy-task slot on pve1 \(all 1 taken; proxmox:heavyTasksPerNode\)$/,
      );
      const got = lines.filter((line) => line.includes("got a heavy-task slot"));
      expect(got).toHaveLength(2);
      for (const line of got)
        expect(line).toMatch(
          /: cloning template 9000: got a heavy-task slot on pve1 after \d+\.\d s$/,
        );
      expect(new Set(created.map((vm) => vm.vmid)).size).toBe(3);
      expect(qemuVms(sim)).toHaveLength(3);
      await Promise.all(created.map((vm) => deleteVm(ctx, vm)));
      expect(qemuVms(sim)).toHaveLength(0);
    } finally {
      vi.restoreAllMocks();
      await sim.close();
    }
  });
});
