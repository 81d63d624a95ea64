import { beforeEach, describe, expect, it } from "vitest";
import { TransientError } from "../../../../provider/pve/errors";
import {
  describe as describeVm,
  identityOf,
  markFor,
  probeOrder,
} from "../../../../provider/vm/identity";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm, PROBE_WINDOW } from "../../../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { VmInitError } from "../../../../provider/vm/init-error";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const owner = { project: "infra", stack: "dev", name: "web" };
const inputs = checkVm(
  {},
  { identity: owner, node: "pve1", template: 9000, cores: 2, memory: 1024 },
).inputs as ResolvedInputs;
const identity = identityOf(owner, { node: "pve1", template: 9000, isoStorage: "local" });
const probe = probeOrder(identity, inputs.vmidRange, PROBE_WINDOW);
const first = probe[0] ?? 0;

describe("createVm", () => {
  let api: FakeProxmoxApi;
  beforeEach(() => {
    api = new FakeProxmoxApi();
  });

  it("clones at the identity's first VMID with the mark in the clone call, then starts the VM", async () => {
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(first);
    const [clone] = api.callsOf("cloneVm")[0] as [
      { newid: number; description: string; name: string },
    ];
    expect(clone.newid).toBe(first);
    expect(clone.description).toContain(`"id":"${identity}","phase":"creating"`);
    expect(state).toMatchObject({ cores: 2, memory: 1024, started: true, currentNode: "pve1" });
    expect(state.ipv4Addresses).toEqual([`10.10.0.${first % 250}`]);
    expect(api.vms.get(first)?.config["description"]).toContain('"phase":"complete"');
    expect(api.isosOn("local", "pve1")).toEqual([state.seedVolid]);
  });

  it("probes on past a foreign VM without reading its config", async () => {
    api.addVm(first, {
      node: "pve2",
      status: "running",
      config: { name: "someone-else", lock: "backup" },
    });
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(probe[1]);
    expect(api.callsOf("vmConfig").some(([, vmid]) => vmid === first)).toBe(false);
  });

  it("probes on when the clone finds the VMID taken behind the listing's back", async () => {
    api.addVm(first, { node: "pve1", status: "stopped", config: { name: "late" } });
    api.listingOverride = (rows) => rows.filter((r) => r.vmid !== first);
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(probe[1]);
    expect(api.callsOf("cloneVm")).toHaveLength(2);
  });

  it("resumes its own interrupted create instead of cloning again", async () => {
    api.addVm(probe[3] ?? 0, {
      node: "pve1",
      status: "stopped",
      config: {
        name: "web-" + identity.slice(0, 6),
        description: describeVm(
          undefined,
          markFor(identity, { node: "pve1", template: 9000, isoStorage: "local" }, "creating"),
        ),
        net0: "virtio=BC:24:11:00:00:77,bridge=vmbr0",
        scsi0: "shared:vm-x-disk-0,size=2G",
        agent: "1",
      },
    });
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(probe[3]);
    expect(api.callsOf("cloneVm")).toEqual([]);
  });

  it("never yields a second VM after a crash mid-clone, even when an earlier VMID was freed", async () => {
    // The crashed clone sits at the third probe slot, nameless, its clone finished meanwhile;
    // the first two slots are free now.
    const slot = probe[2] ?? 0;
    api.addVm(slot, {
      node: "pve1",
      status: "stopped",
      config: {
        description: describeVm(
          undefined,
          markFor(identity, { node: "pve1", template: 9000, isoStorage: "local" }, "creating"),
        ),
        net0: "virtio=BC:24:11:00:00:78,bridge=vmbr0",
        scsi0: "shared:vm-x-disk-0,size=2G",
      },
    });
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(slot);
    expect(api.callsOf("cloneVm")).toEqual([]);
    expect([...api.vms.keys()].filter((id) => id !== 9000)).toEqual([slot]);
  });

  it("treats PVE's placeholder name VM <vmid> as nameless, and resumes its own clone", async () => {
    const slot = probe[1] ?? 0;
    api.addVm(slot, {
      node: "pve1",
      status: "stopped",
      config: {
        description: describeVm(
          undefined,
          markFor(identity, { node: "pve1", template: 9000, isoStorage: "local" }, "creating"),
        ),
        net0: "virtio=BC:24:11:00:00:79,bridge=vmbr0",
        scsi0: "shared:vm-x-disk-0,size=2G",
      },
    });
    api.listingOverride = (rows) =>
      rows.map((r) => (r.vmid === slot ? { ...r, name: `VM ${slot}`, status: "unknown" } : r));
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(slot);
    expect(api.callsOf("cloneVm")).toEqual([]);
  });

  it("waits out a nameless clone in progress in its window, then probes on when it is not ours", async () => {
    const ctx = testContext(api);
    api.addVm(first, {
      node: "pve1",
      status: "stopped",
      config: { lock: "clone", description: " qmclone temporary file" },
    });
    let reads = 0;
    const original = api.vmConfig.bind(api);
    api.vmConfig = async (node, vmid) => {
      if (vmid === first && ++reads === 3) {
        const vm = api.vms.get(first);
        if (vm) vm.config = { name: "other-clone", description: "not ours" };
      }
      return original(node, vmid);
    };
    const state = await createVm(ctx, inputs);
    expect(reads).toBe(3);
    expect(state.vmid).toBe(probe[1]);
    expect(ctx.progressLines).toContain(
      `VM ${first} on pve1: waiting for a clone in progress to finish (0 s)`,
    );
  });

  it("gives up on a clone that outlasts the clone budget with a Transient LOCKED error", async () => {
    api.addVm(first, { node: "pve1", status: "stopped", config: { lock: "clone" } });
    const short = { ...inputs, timeouts: { ...inputs.timeouts, cloneMs: 3_000 } };
    await expect(createVm(testContext(api), short)).rejects.toMatchObject({
      code: "LOCKED",
      transient: true,
    });
  });

  it("refuses to take a complete VM with its identity that the stack does not know", async () => {
    await createVm(testContext(api), inputs);
    await expect(createVm(testContext(api), inputs)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/`pulumi-proxmox up` resumes it.*set `adopt: true`/),
    });
  });

  it("adopts that VM with adopt: true", async () => {
    const created = await createVm(testContext(api), inputs);
    const adopted = await createVm(testContext(api), { ...inputs, adopt: true });
    expect(adopted.vmid).toBe(created.vmid);
    expect(api.callsOf("cloneVm")).toHaveLength(1);
  });

  it("never adopts the VM it replaces when the placement changes", async () => {
    const old = await createVm(testContext(api), inputs);
    const template = api.vms.get(9000);
    if (!template) throw new Error("the fake has no template 9000");
    api.addVm(9001, { ...structuredClone(template), node: "pve1" });
    const moved = await createVm(testContext(api), { ...inputs, template: 9001 });
    expect(moved.vmid).not.toBe(old.vmid);
    expect(api.callsOf("cloneVm")).toHaveLength(2);
  });

  it("reports an exhausted VMID range as Transient, naming the range", async () => {
    const tiny = { ...inputs, vmidRange: { min: 500, max: 501 } };
    api.addVm(500, { node: "pve1", status: "stopped", config: { name: "a" } });
    api.addVm(501, { node: "pve1", status: "stopped", config: { name: "b" } });
    const error = await createVm(testContext(api), tiny).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect(error).toMatchObject({
      code: "RANGE_EXHAUSTED",
      message: expect.stringContaining("500–501"),
    });
    expect(api.callsOf("vmConfig").filter(([, id]) => id === 500 || id === 501)).toEqual([]);
  });

  it("counts a start that lost a race to another starter as started", async () => {
    api.taskOutcomes.push("OK", "OK", "OK", `VM ${first} already running`);
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(first);
    expect(api.callsOf("startVm")).toHaveLength(1);
  });

  it("hands a VM that fails after the clone to Pulumi as a partial create", async () => {
    api.taskOutcomes.push("OK", "OK", "start failed: volume does not exist");
    const error = await createVm(testContext(api), inputs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VmInitError);
    expect(error).toMatchObject({
      id: String(first),
      properties: { vmid: first, node: "pve1", template: 9000, cores: 2 },
      reasons: [expect.stringContaining("start failed")],
    });
  });
});
