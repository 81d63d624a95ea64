import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { useStack } from "../e2e/support/use-stack";
import { expectFailure, expectSuccess } from "../support/command-result";
import { copyExample, run } from "./support";

/**
 * examples/gpu-worker through the real engine: a VM with every host-facing input (a mapped GPU on q35's
 * PCI Express bus, a mapped USB key, a virtiofs share, an RNG, a watchdog, disk I/O limits and a
 * trunked NIC, and with root@pam's password login a hookscript), the mappings made by the
 * example's own setup script over PVE's API.
 */
describe("examples/gpu-worker through the real engine against the simulator", () => {
  const stack = useStack({ dir: copyExample("gpu-worker") });
  const { sim, dir } = stack;
  const set = async (key: string, value: string) =>
    expect((await stack.pulumi(["config", "set", key, value])).code).toBe(0);
  const vmids = async () =>
    (JSON.parse((await stack.pulumi(["stack", "output", "--json"])).stdout) as { vmids: number[] })
      .vmids;

  it("makes its mappings with setup-mappings.js, over PVE's API with the admin's token", async () => {
    const ca = path.join(dir, "pve-ca.pem");
    fs.writeFileSync(ca, sim.caCertPem);
    const env = {
      ...process.env,
      PROXMOX_VE_ENDPOINT: sim.url,
      PROXMOX_VE_API_TOKEN: sim.apiToken,
      NODE_EXTRA_CA_CERTS: ca,
    };
    const args = ["setup-mappings.js", "pve1", "0000:01:00.0", "10de:2204", "/srv/datasets"];
    expectSuccess(await run("node", args, dir, env));
    // Beside them, as an admin adds them: a second GPU and a USB licence dongle.
    sim.faults.setMapping("pci", "gpu1", { map: ["node=pve1,path=0000:02:00.0,id=10de:2204"] });
    sim.faults.setMapping("usb", "dongle", { map: ["node=pve1,id=1050:0407"] });
  });

  it("creates the worker with its GPU, USB key, share, RNG, watchdog, I/O limits and trunk, and three refreshes find no drift", async () => {
    await set("usbMapping", "dongle");
    await stack.up();
    const [vmid] = await vmids();
    const vm = sim.model.vms.get(vmid ?? 0);
    expect(vm?.config).toMatchObject({
      machine: "q35",
      hostpci0: "mapping=gpu0,pcie=1",
      usb0: "mapping=dongle,usb3=1",
      virtiofs0: "dirid=datasets,cache=always",
      rng0: "source=/dev/urandom",
      watchdog: "model=i6300esb,action=reset",
    });
    expect(String(vm?.config["scsi0"])).toMatch(/mbps_rd=400,mbps_wr=200/);
    expect(String(vm?.config["net0"])).toMatch(/trunks=10;20/);
    expect([vm?.status, vm?.pciDevices]).toEqual(["running", ["0000:01:00.0"]]);
    for (let i = 0; i < 3; i++) {
      expectSuccess(await stack.pulumi(["preview", "--refresh", "--expect-no-changes"]));
    }
  });

  it("applies a new disk read limit to the running worker without a reboot", async () => {
    const [vmid] = await vmids();
    const startedAt = sim.model.vms.get(vmid ?? 0)?.startedAt;
    await set("diskReadMBps", "100");
    const up = await stack.up();
    expect(up.stdout).not.toContain("rebooting");
    const vm = sim.model.vms.get(vmid ?? 0);
    expect(String(vm?.config["scsi0"])).toMatch(/mbps_rd=100/);
    expect([vm?.status, vm?.startedAt]).toEqual(["running", startedAt]);
  });

  it("reboots the worker to give it another GPU, as rebootPolicy allows", async () => {
    await set("gpuMapping", "gpu1");
    const up = await stack.up();
    const [vmid] = await vmids();
    expect(up.stdout).toContain(`VM ${vmid} on pve1: rebooting to apply hostpci0`);
    expect(sim.model.vms.get(vmid ?? 0)?.pciDevices).toEqual(["0000:02:00.0"]);
  });

  it("fails a second worker's start on the same GPU as PVE does, naming the device and its holder", async () => {
    await set("workers", "2");
    const up = await stack.pulumi(["up", "--yes", "--skip-preview"]);
    expectFailure(up);
    const [holder] = guestVms(sim);
    expect(up.stdout + up.stderr).toContain(
      `PCI device '0000:02:00.0' already in use by VMID '${holder}'`,
    );
  });

  it("refuses a raw host id to the token at preview, naming the input, and writes nothing", async () => {
    await set("workers", "1");
    await set("gpuHost", "0000:01:00.0");
    sim.clearRequestLog();
    const preview = await stack.pulumi(["preview"]);
    expectFailure(preview);
    expect(preview.stdout + preview.stderr).toMatch(
      /hostPci\[0\]\.host: is a raw host PCI id, which PVE lets only root@pam set, and the API token root@pam!ci is not root@pam/,
    );
    expect(sim.requestLog.filter((entry) => entry.method !== "GET")).toEqual([]);
  });

  it("takes the raw id and a hookscript from root@pam's password login, rebooting onto the GPU", async () => {
    sim.faults.putSnippet("pve1", "local", "gpu-hook.pl", true);
    await stack.pulumi(["config", "rm", "proxmox:apiToken"]);
    await set("proxmox:username", "root@pam");
    expect(
      (await stack.pulumi(["config", "set", "--secret", "proxmox:password", sim.rootPassword]))
        .code,
    ).toBe(0);
    await set("hookscript", "local:snippets/gpu-hook.pl");
    const up = await stack.up();
    const [vmid] = await vmids();
    expect(up.stdout).toContain(`VM ${vmid} on pve1: rebooting to apply hostpci0`);
    const vm = sim.model.vms.get(vmid ?? 0);
    expect(vm?.config).toMatchObject({
      hostpci0: "host=0000:01:00.0,pcie=1",
      hookscript: "local:snippets/gpu-hook.pl",
    });
    expect(vm?.pciDevices).toEqual(["0000:01:00.0"]);
    expectSuccess(await stack.pulumi(["preview", "--refresh", "--expect-no-changes"]));
  });

  it("destroys the workers and their seeds, leaving nothing", async () => {
    expectSuccess(await stack.pulumi(["destroy", "--yes", "--skip-preview"]));
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
