import { afterEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { updateVm } from "../../../../provider/vm/operations/update";
import { buildContext } from "../../../../provider/pve/connection";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api";
import { parseConnectionConfig } from "../../../../provider/pve/config";
import { waitForTask } from "../../../../provider/pve/tasks/task-wait";

const inputs = (extra: Record<string, unknown>) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "test", name: "router" },
      node: "pve1",
      template: 9000,
      ...extra,
    },
  ).inputs as ResolvedInputs;

const threeNics = [
  { bridge: "vmbr0" },
  { bridge: "vmbr1", vlan: 20, firewall: true, mtu: 9000 },
  { bridge: "vmbr1", ipv4: { address: "192.168.5.10/24" } },
];

let sim: Simulator | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sim?.close();
});

async function contextFor(): Promise<OperationContext> {
  sim = await startSimulator({
    guestBootMs: 20,
    bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" },
  });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  return buildContext({ get: (key) => config[key] });
}

const configOf = (vmid: number) => sim?.model.vms.get(vmid)?.config ?? {};
const macOf = (value: unknown) => String(value).split(",")[0]?.split("=")[1];

describe("a VM with several NICs against the simulator", () => {
  it("adds each NIC with PVE's MAC, addresses every one through the seed, in NIC order", async () => {
    const ctx = await contextFor();
    const progress = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const vm = await createVm(ctx, inputs({ networks: threeNics, nameservers: ["10.10.0.53"] }));

    const config = configOf(vm.vmid);
    expect(String(config["net1"])).toMatch(
      /^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr1,firewall=1,mtu=9000,tag=20$/,
    );
    expect(String(config["net2"])).toMatch(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr1$/);
    // Added before the seed was built, so network-config could name them by MAC.
    const lines = progress.mock.calls.map(([line]) => String(line));
    expect(lines.findIndex((l) => l.includes("adding net1, net2"))).toBeLessThan(
      lines.findIndex((l) => l.includes("uploading seed")),
    );
    // The guest matched each network-config entry by MAC: a lease on vmbr0, one on vmbr1, the static.
    expect(vm.ipv4Addresses).toHaveLength(3);
    expect(vm.ipv4Addresses[0]).toMatch(/^10\.10\.0\./);
    expect(vm.ipv4Addresses[1]).toMatch(/^10\.20\.0\./);
    expect(vm.ipv4Addresses[2]).toBe("192.168.5.10");
    expect(vm.macAddress).toBe(macOf(config["net0"]));

    // Refreshed, the VM shows what the program asked for: no changes.
    const read = await readVm(ctx, vm);
    expect(read?.networks).toEqual(vm.networks);
    expect(
      diffVm({ ...read }, inputs({ networks: threeNics, nameservers: ["10.10.0.53"] })),
    ).toMatchObject({ changes: false });

    await deleteVm(ctx, vm);
    expect(sim?.model.vms.has(vm.vmid)).toBe(false);
  });

  it("removes a NIC dropped from the list and changes another in place, keeping its MAC", async () => {
    const ctx = await contextFor();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const vm = await createVm(ctx, inputs({ networks: threeNics }));
    const net1Mac = macOf(configOf(vm.vmid)["net1"]);

    const changed = [threeNics[0], { ...threeNics[1], rate: 12.5, mtu: undefined }];
    const updated = await updateVm(ctx, vm, inputs({ networks: changed }));

    const config = configOf(vm.vmid);
    expect(config["net2"]).toBeUndefined();
    expect(config["net1"]).toBe(`virtio=${net1Mac},bridge=vmbr1,firewall=1,rate=12.5,tag=20`);
    expect(updated.ipv4Addresses).toHaveLength(2);
    expect(updated.ipv4Addresses).not.toContain("192.168.5.10");
    expect(diffVm({ ...updated }, inputs({ networks: changed })).changes).toBe(false);

    await deleteVm(ctx, updated);
    expect(sim?.model.vms.has(vm.vmid)).toBe(false);
  });

  it("reports a NIC moved to another bridge behind the program's back as drift of networks", async () => {
    const ctx = await contextFor();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const vm = await createVm(ctx, inputs({ networks: threeNics.slice(0, 2), waitForIp: false }));
    const api = new HttpProxmoxApi({
      connection: parseConnectionConfig(
        { endpoint: sim?.url, apiToken: sim?.apiToken, caCert: sim?.caCertPem },
        { env: {} },
      ),
    });
    const net1 = String(configOf(vm.vmid)["net1"]);
    const upid = await api.updateVmConfig("pve1", vm.vmid, {
      set: { net1: net1.replace("vmbr1", "vmbr0") },
    });
    if (upid) await waitForTask(api, "pve1", upid, { budgetMs: 30_000 });

    const read = await readVm(ctx, vm);
    if (read === undefined) throw new Error("the VM was not found on refresh");
    expect(read.networks?.[1]).toMatchObject({ bridge: "vmbr0", vlan: 20 });
    const news = inputs({ networks: threeNics.slice(0, 2), waitForIp: false });
    expect(diffVm({ ...read }, news)).toMatchObject({ changes: true, changed: ["networks"] });

    // The next update puts it back, on the same MAC.
    const fixed = await updateVm(ctx, read, news);
    expect(configOf(vm.vmid)["net1"]).toBe(net1);
    expect(diffVm({ ...fixed }, news).changes).toBe(false);
    await deleteVm(ctx, fixed);
  });

  it("names the VM, node and NIC when PVE refuses a NIC, and the next update adds it", async () => {
    const ctx = await contextFor();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const two = threeNics.slice(0, 2);
    const vm = await createVm(ctx, inputs({ networks: two }));
    sim?.faults.failTasks({ type: "qmconfig" }, "hotplug problem - bridge 'vmbr1' does not exist");

    const failed = await updateVm(ctx, vm, inputs({ networks: threeNics })).catch(
      (error: unknown) => error,
    );
    expect(String((failed as Error).message)).toMatch(
      new RegExp(
        `VM ${vm.vmid} on pve1: adding net2 \\(networks\\[2\\]\\) failed: .*bridge 'vmbr1' does not exist`,
      ),
    );
    // Nothing half-written: the VM still has its two NICs, and no third.
    expect(configOf(vm.vmid)["net2"]).toBeUndefined();

    const retried = await updateVm(ctx, vm, inputs({ networks: threeNics }));
    expect(String(configOf(vm.vmid)["net2"])).toMatch(/,bridge=vmbr1$/);
    expect(retried.ipv4Addresses).toContain("192.168.5.10");
    await deleteVm(ctx, retried);
    expect(sim?.model.vms.has(vm.vmid)).toBe(false);
  });

  it("moves a VM from the network shorthand to networks in place, keeping net0 and its MAC", async () => {
    const ctx = await contextFor();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const vm = await createVm(ctx, inputs({ network: { bridge: "vmbr0" } }));
    const net0 = configOf(vm.vmid)["net0"];

    const news = inputs({ networks: threeNics.slice(0, 2) });
    expect(diffVm({ ...vm }, news)).toMatchObject({ changes: true, replaces: [] });
    const moved = await updateVm(ctx, vm, news);

    expect(moved.vmid).toBe(vm.vmid);
    expect(configOf(vm.vmid)["net0"]).toBe(net0);
    expect(String(configOf(vm.vmid)["net1"])).toMatch(/,bridge=vmbr1,.*tag=20/);
    expect(moved.ipv4Addresses).toHaveLength(2);
    expect(diffVm({ ...(await readVm(ctx, moved)) }, news).changes).toBe(false);
    await deleteVm(ctx, moved);
  });

  it("adds a NIC PVE keeps pending (no network in hotplug) and reboots onto it", async () => {
    const ctx = await contextFor();
    const progress = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const vm = await createVm(ctx, inputs({ networks: threeNics.slice(0, 2) }));
    sim?.faults.setConfig(vm.vmid, { hotplug: "disk,usb" });

    const added = await updateVm(ctx, vm, inputs({ networks: threeNics }));
    const lines = progress.mock.calls.map(([line]) => String(line));
    expect(lines).toContainEqual(expect.stringMatching(/adding net2 \(networks\[2\]\)/));
    expect(lines).toContainEqual(expect.stringMatching(/rebooting to apply .*cloud-init seed/));
    // The reboot applied the pending NIC, and the guest configured it from the new seed.
    expect(sim?.model.vms.get(vm.vmid)?.pending["net2"]).toBeUndefined();
    expect(String(configOf(vm.vmid)["net2"])).toMatch(/,bridge=vmbr1$/);
    expect(added.ipv4Addresses).toContain("192.168.5.10");
    await deleteVm(ctx, added);
  });
});
