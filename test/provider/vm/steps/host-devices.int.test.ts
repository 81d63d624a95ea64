import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import { buildContext } from "../../../../provider/pve/connection";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { hostDeviceFailures } from "../../../../provider/vm/steps/host-devices";

const inputs = (extra: Record<string, unknown>) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "devices", name: "vm" },
      node: "pve1",
      template: 9000,
      ...extra,
    },
  ).inputs;

const contextOf = (sim: Simulator, login: Record<string, string>): OperationContext => {
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:caCert": sim.caCertPem,
    ...login,
  };
  return buildContext({ get: (key) => config[key] });
};

describe("hostDeviceFailures against the simulator", () => {
  let sim: Simulator;
  let token: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator();
    sim.faults.setMapping("pci", "gpu0", { map: ["node=pve2,path=0000:01:00.0,id=10de:2204"] });
    token = contextOf(sim, { "proxmox:apiToken": sim.apiToken });
  });
  afterAll(() => sim.close());

  it("refuses raw host ids to a token, naming each and the login that would do", async () => {
    const news = inputs({ hostPci: [{ host: "0000:01:00.0" }], usb: [{ host: "1050:0407" }] });
    const failures = await hostDeviceFailures(async () => token, {}, news);
    expect(failures.map((f) => f.property)).toEqual(["hostPci[0].host", "usb[0].host"]);
    expect(failures[0]?.reason).toMatch(
      /only root@pam set, and the API token root@pam!ci is not root@pam\. .*proxmox:username/,
    );
  });

  it("lets root@pam's password login set raw ids", async () => {
    const root = contextOf(sim, {
      "proxmox:username": "root@pam",
      "proxmox:password": sim.rootPassword,
    });
    const news = inputs({ hostPci: [{ host: "0000:01:00.0" }] });
    expect(await hostDeviceFailures(async () => root, {}, news)).toEqual([]);
  });

  it("names the node a mapping has no entry for, and a mapping that does not exist", async () => {
    const news = inputs({ hostPci: [{ mapping: "gpu0" }], usb: [{ mapping: "nokey" }] });
    const failures = await hostDeviceFailures(async () => token, {}, news);
    expect(failures).toEqual([
      {
        property: "hostPci[0].mapping",
        reason: expect.stringMatching(/"gpu0" has no entry for node pve1 \(it has: pve2\)/),
      },
      {
        property: "usb[0].mapping",
        reason: expect.stringMatching(/^there is no USB resource mapping "nokey"/),
      },
    ]);
    const moved = inputs({ node: "pve2", hostPci: [{ mapping: "gpu0" }] });
    expect(await hostDeviceFailures(async () => token, {}, moved)).toEqual([]);
  });

  it("refuses virtiofs on PVE 7.4, naming the release", async () => {
    const old = await startSimulator({ pveVersion: "7.4" });
    try {
      const ctx = contextOf(old, { "proxmox:apiToken": old.apiToken });
      const news = inputs({ virtiofs: [{ mapping: "share" }] });
      expect(await hostDeviceFailures(async () => ctx, {}, news)).toEqual([
        { property: "virtiofs", reason: expect.stringMatching(/needs PVE 8\.4 .* runs PVE 7\.4/) },
      ]);
    } finally {
      await old.close();
    }
  });
});
