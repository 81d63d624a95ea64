import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { readMark } from "../../../../provider/vm/identity";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";
import { LOCAL_TEMPLATE } from "../../../support/local-template";

const resolve = (extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "test", name: "far" },
      node: "pve2",
      template: 9100,
      waitForIp: false,
      ...extra,
    },
  ).inputs as ResolvedInputs;

let sim: Simulator;
let ctx: OperationContext;
let lines: string[];
beforeEach(async () => {
  sim = await startSimulator({ guestBootMs: 20, templates: [LOCAL_TEMPLATE] });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  ctx = buildContext({ get: (key) => config[key] });
  lines = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await sim.close();
});

const guests = () => [...sim.model.vms.values()].filter((vm) => vm.vmid !== 9100);

describe("a full clone of a template on another node's local storage", () => {
  it("is cloned on the template's node, then migrated offline with its disk, saying so", async () => {
    const created = await createVm(ctx, resolve());
    expect(created.currentNode).toBe("pve2");
    const [vm] = guests();
    expect(vm?.node).toBe("pve2");
    expect(vm?.status).toBe("running");
    expect(vm?.config["scsi0"]).toMatch(/^local-lvm:vm-\d+-disk-0,/);
    expect(sim.model.volumes("pve2", "local-lvm").map((v) => v.vmid)).toContain(created.vmid);
    expect(sim.model.volumes("pve1", "local-lvm").map((v) => v.vmid)).not.toContain(created.vmid);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /on pve1: the template's disks are on node-local storage.*migrating offline from pve1 to pve2 with its local disks/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/on pve2: migrated from pve1 in \d+ s/));
    await deleteVm(ctx, created);
    expect(guests()).toEqual([]);
  });

  it("moves its disk onto the storage asked for, since PVE clones by the source's storage", async () => {
    const created = await createVm(ctx, resolve({ storage: "shared" }));
    expect(lines).toContainEqual(
      expect.stringMatching(/migrating offline from pve1 to pve2 with its local disks onto shared/),
    );
    expect(guests()[0]?.config["scsi0"]).toMatch(/^shared:vm-\d+-disk-0,/);
    await deleteVm(ctx, created);
    expect(guests()).toEqual([]);
  });

  it("after a failed migration leaves the clone on the template's node, and the next create moves it", async () => {
    sim.faults.failRequests({ method: "POST", path: "/migrate$" }, 500, "migration aborted");
    const failed = await createVm(ctx, resolve()).catch((error: unknown) => error);
    expect(failed).toMatchObject({ message: expect.stringContaining("migration aborted") });
    const [left] = guests();
    expect(left?.node).toBe("pve1");
    expect(readMark(String(left?.config["description"]))).toMatchObject({
      node: "pve2",
      phase: "creating",
    });

    const resumed = await createVm(ctx, resolve());
    expect(resumed.vmid).toBe(left?.vmid);
    expect(guests().map((vm) => [vm.vmid, vm.node])).toEqual([[left?.vmid, "pve2"]]);
    await deleteVm(ctx, resumed);
    expect(guests()).toEqual([]);
  });
});
