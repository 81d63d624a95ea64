import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { preflight } from "../../../../provider/vm/steps/preflight";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";

const resolve = (extra: Record<string, unknown>) => {
  const { inputs, failures } = checkVm(
    {},
    {
      identity: { project: "int", stack: "preflight", name: "vm" },
      node: "pve1",
      template: 9000,
      memory: 512,
      ...extra,
    },
  );
  expect(failures).toEqual([]);
  return inputs as ResolvedInputs;
};

describe("preflight against the simulator", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator();
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = buildContext({ get: (key) => config[key] });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.faults.clear();
    sim.faults.nodeUp("pve2");
    sim.clearRequestLog();
  });

  const writes = () => sim.requestLog.filter((r) => r.method !== "GET");

  it.each([
    [
      "a node that does not exist",
      { node: "pve9" },
      'node: there is no node "pve9" in the cluster (nodes: pve1, pve2). Set node to one of them.',
    ],
    [
      "a storage that does not exist",
      { storage: "fast-nvme" },
      'storage: storage "fast-nvme" does not exist on node pve1, or the token lacks Datastore.Audit ' +
        "on /storage/fast-nvme (storages it sees there: local, local-lvm, shared). " +
        "Set storage to a storage with images content, or grant the privilege.",
    ],
    [
      "a disk storage without images content",
      { storage: "local" },
      "storage: storage local on node pve1 does not hold images content (it holds backup, iso, vztmpl). " +
        "Add images to its content (Datacenter → Storage → local) or set storage to a storage that has it.",
    ],
    [
      "an ISO storage that does not exist",
      { isoStorage: "isos" },
      'isoStorage: storage "isos" does not exist on node pve1, or the token lacks Datastore.Audit ' +
        "on /storage/isos (storages it sees there: local, local-lvm, shared). " +
        "Set isoStorage to a storage with iso content, or grant the privilege.",
    ],
    [
      "an ISO storage without iso content",
      { isoStorage: "local-lvm" },
      "isoStorage: storage local-lvm on node pve1 does not hold iso content (it holds images, rootdir). " +
        "Add iso to its content (Datacenter → Storage → local-lvm) or set isoStorage to a storage that has it.",
    ],
    [
      "a disk's storage without images content",
      {
        disks: [
          { interface: "scsi0", sizeGiB: 4 },
          { interface: "scsi1", storage: "local", sizeGiB: 8 },
        ],
      },
      "disks[1].storage: storage local on node pve1 does not hold images content (it holds backup, iso, vztmpl). " +
        "Add images to its content (Datacenter → Storage → local) or set disks[1].storage to a storage that has it.",
    ],
    [
      "a NIC on a bridge the node does not have",
      { networks: [{ bridge: "vmbr0" }, { bridge: "vmbr9" }] },
      "networks[1].bridge: bridge vmbr9 is not on node pve1, or the API token may not use it " +
        "(bridges it can use there: vmbr0). Set networks[1].bridge to one of them, create vmbr9 " +
        "on pve1 (System → Network), or, on PVE 8 and later, grant the token SDN.Use on " +
        "/sdn/zones/localnetwork/vmbr9.",
    ],
    [
      "the one NIC of network on a bridge the node does not have",
      { network: { bridge: "vmbr7" } },
      "network.bridge: bridge vmbr7 is not on node pve1, or the API token may not use it " +
        "(bridges it can use there: vmbr0). Set network.bridge to one of them, create vmbr7 " +
        "on pve1 (System → Network), or, on PVE 8 and later, grant the token SDN.Use on " +
        "/sdn/zones/localnetwork/vmbr7.",
    ],
    [
      "a template that does not exist",
      { template: "no-such-template" },
      'template: Template "no-such-template" was not found on the cluster. ' +
        "Check the name or VMID (`qm list` on a node) and that the token has VM.Audit on it.",
    ],
  ])("rejects %s before anything is cloned", async (_what, extra, message) => {
    const inputs = resolve(extra);
    await expect(createVm(ctx, inputs)).rejects.toMatchObject({
      code: "INVALID_PARAM",
      transient: false,
      message,
    });
    expect(writes()).toEqual([]);
    expect([...sim.model.vms.keys()].sort()).toEqual([9000, 9001]);
  });

  it("rejects a node that is offline, naming it", async () => {
    sim.faults.nodeDown("pve2");
    await expect(createVm(ctx, resolve({ node: "pve2", template: 9001 }))).rejects.toMatchObject({
      code: "INVALID_PARAM",
      message:
        "node: node pve2 is offline; a VM cannot be cloned onto it. " +
        "Bring the node back online or set node to an online one.",
    });
    expect(writes()).toEqual([]);
  });

  it("passes good inputs in four reads and the shared listing, then create clones; a plain VM is refused as template", async () => {
    const inputs = resolve({ storage: "local-lvm", started: false, waitForIp: false });
    await preflight(ctx, inputs);
    // The cluster listing and the node's storages are shared by the process and may be served
    // from their short caches.
    const shared = new Set(["GET /cluster/resources", "GET /nodes/pve1/storage"]);
    expect(
      sim.requestLog.map((r) => `${r.method} ${r.path}`).filter((r) => !shared.has(r)),
    ).toEqual(["GET /nodes", "GET /nodes/pve1/network", "GET /nodes/pve1/qemu/9000/config"]);

    const vm = await createVm(ctx, inputs);
    expect(sim.model.vms.get(vm.vmid)?.node).toBe("pve1");

    await ctx.listVms({ fresh: true }); // the shared listing is cached: let it see the new VM
    sim.clearRequestLog();
    await expect(
      createVm(
        ctx,
        resolve({
          template: vm.vmid,
          identity: { project: "int", stack: "preflight", name: "other" },
        }),
      ),
    ).rejects.toMatchObject({
      code: "INVALID_PARAM",
      message:
        `template: VM ${vm.vmid} on pve1 is not a template; convert it with ` +
        "`qm template <vmid>` or choose a template.",
    });
    expect(writes()).toEqual([]);

    await deleteVm(ctx, vm);
    expect([...sim.model.vms.keys()].sort()).toEqual([9000, 9001]);
  });
});
