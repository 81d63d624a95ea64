import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";
import { buildIso } from "../support/iso-builder.js";
import { uploadFile } from "../support/upload.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm({ guestBootMs: 150 }));
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

async function attachSeed(
  files: Record<string, string>,
  options: Parameters<typeof buildIso>[1] = {},
): Promise<void> {
  const up = await uploadFile(sim, "pve1", "local", "seed-100.iso", buildIso(files, options));
  await api.waitTask("pve1", String(up.body?.["data"]));
  await api.call("PUT", "/nodes/pve1/qemu/100/config", {
    ide2: "local:iso/seed-100.iso,media=cdrom",
  });
}

async function startAndBoot(): Promise<void> {
  await api.waitTask(
    "pve1",
    String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
  );
  await new Promise((r) => setTimeout(r, 200));
}

const interfaces = async () =>
  (
    data(await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces")) as {
      result: Record<string, unknown>[];
    }
  ).result;

describe("routes/agent", () => {
  it("fails as PVE does before the guest boots, then answers", async () => {
    const stopped = await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces");
    expect([stopped.status, stopped.statusText]).toEqual([500, "VM 100 is not running"]);
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const early = await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces");
    expect([early.status, early.body]).toEqual([
      500,
      { data: null, message: "QEMU guest agent is not running\n" },
    ]);
    await new Promise((r) => setTimeout(r, 200));
    const result = await interfaces();
    expect(result.map((i) => i["name"])).toEqual(["lo", "eth0"]);
  });

  it("answers 'No QEMU guest agent configured' without an agent key", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { delete: "agent" });
    const res = await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces");
    expect(res.statusText).toBe("No QEMU guest agent configured");
  });

  it("reports the seed's hostname and a DHCP lease from the bridge pool, matched by MAC", async () => {
    const mac =
      String(sim.model.vms.get(100)?.config["net0"]).split(",")[0]?.split("=")[1]?.toLowerCase() ??
      "";
    await attachSeed({
      "meta-data": "instance-id: iid-100\nlocal-hostname: web1\n",
      "network-config": `version: 2\nethernets:\n  nic0:\n    match:\n      macaddress: "${mac}"\n    dhcp4: true\n`,
    });
    await startAndBoot();
    const [lo, eth0] = await interfaces();
    expect(lo).toMatchObject({ name: "lo", "hardware-address": "00:00:00:00:00:00" });
    expect(eth0?.["hardware-address"]).toBe(mac);
    expect((eth0?.["ip-addresses"] as Record<string, unknown>[])[0]).toEqual({
      "ip-address": "10.10.0.100",
      "ip-address-type": "ipv4",
      prefix: 24,
    });
    expect(data(await api.get("/nodes/pve1/qemu/100/agent/get-host-name"))).toEqual({
      result: { "host-name": "web1" },
    });
    expect(sim.model.vms.get(100)?.guest.seedError).toBeUndefined();
  });

  it("reports static addresses as the network-config gives them (primary names only)", async () => {
    await attachSeed(
      {
        "meta-data": "local-hostname: db1\n",
        "network-config":
          "network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [192.168.5.7/24]\n",
      },
      { joliet: false, primaryName: (n) => `${n.toUpperCase()};1` },
    );
    await startAndBoot();
    const eth0 = (await interfaces())[1];
    expect((eth0?.["ip-addresses"] as Record<string, unknown>[])[0]).toEqual({
      "ip-address": "192.168.5.7",
      "ip-address-type": "ipv4",
      prefix: 24,
    });
  });

  it("records an unreadable seed and falls back to DHCP on eth0", async () => {
    await attachSeed({ "meta-data": "local-hostname: x\n" }, { volumeId: "CDROM" });
    await startAndBoot();
    expect(sim.model.vms.get(100)?.guest.seedError).toBe("volume label 'CDROM' is not 'cidata'");
    expect(data(await api.get("/nodes/pve1/qemu/100/agent/get-host-name"))).toEqual({
      result: { "host-name": "vm100" },
    });
  });

  it("records a seed whose YAML is outside the subset", async () => {
    await attachSeed({ "meta-data": "local-hostname: &a x\n" });
    await startAndBoot();
    expect(sim.model.vms.get(100)?.guest.seedError).toBe("unsupported YAML construct '&a x'");
  });
});
