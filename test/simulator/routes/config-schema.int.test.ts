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
});
