import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import type { PveVersion } from "../../../simulator/model/versions.js";
import { startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

async function start(pveVersion: PveVersion): Promise<void> {
  ({ sim, api } = await startWithClonedVm({ pveVersion }));
}

describe("routes/config-schema per release", () => {
  it("refuses the SCSI vendor and product options on 7.4 and stores them from 8.x on", async () => {
    const value = "local-lvm:2,vendor=ACME,product=Disk";
    await start("7.4");
    const old = await api.putConfig("pve1", 100, { scsi1: value });
    expect([old.status, old.body?.["errors"]]).toEqual([
      400,
      { scsi1: "invalid format - invalid key in comma-separated list property: vendor" },
    ]);
    await api.close();
    await sim.close();
    await start("9.1");
    expect((await api.putConfig("pve1", 100, { scsi1: value })).status).toBe(200);
    expect((await api.vmConfig("pve1", 100))["scsi1"]).toBe(
      "local-lvm:vm-100-disk-0,product=Disk,size=2G,vendor=ACME",
    );
  });

  it("wants VM.Config.Network for ipconfigN on 7.4 and VM.Config.Cloudinit from 8.x on", async () => {
    for (const [release, wanted] of [
      ["7.4", "VM.Config.Network"],
      ["8.4", "VM.Config.Cloudinit"],
    ] as const) {
      await start(release);
      const token = api.withToken(
        sim.addToken("ops@pve!ci", [{ path: "/vms", privileges: ["VM.Config.Options"] }]),
      );
      const res = await token.call("PUT", "/nodes/pve1/qemu/100/config", { ipconfig0: "ip=dhcp" });
      expect([res.status, res.statusText]).toEqual([
        403,
        `Permission check failed (/vms/100, ${wanted})`,
      ]);
      await token.close();
      await api.close();
      await sim.close();
    }
    await start("8.4");
  });

  it("keeps a CPU weight above 10000 on 7.4 (cgroup v1) and clamps it to 10000 from 8.x on", async () => {
    for (const [release, stored] of [
      ["7.4", 50000],
      ["8.4", 10000],
    ] as const) {
      await start(release);
      expect((await api.putConfig("pve1", 100, { cpuunits: 50000 })).status).toBe(200);
      expect((await api.vmConfig("pve1", 100))["cpuunits"]).toBe(stored);
      await api.close();
      await sim.close();
    }
    await start("8.4");
  });

  it("leaves affinity, hookscript and hugepages to root@pam, and wants VM.Config.CPU for numaN", async () => {
    await start("8.4");
    const token = api.withToken(
      sim.addToken("ops@pve!all", [
        { path: "/vms", privileges: ["VM.Config.CPU", "VM.Config.Memory", "VM.Config.HWType"] },
      ]),
    );
    for (const [key, value] of [
      ["affinity", "0-3"],
      ["hookscript", "local:snippets/hook.pl"],
      ["hugepages", "2"],
    ] as const) {
      const res = await token.call("PUT", "/nodes/pve1/qemu/100/config", { [key]: value });
      expect([res.status, res.statusText]).toEqual([500, `only root can set '${key}' config`]);
    }
    const allowed = { numa0: "cpus=0-1,memory=1024", audio0: "device=AC97" };
    expect((await token.call("PUT", "/nodes/pve1/qemu/100/config", allowed)).status).toBe(200);
    await token.close();
  });
});
