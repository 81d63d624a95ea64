import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import {
  data,
  startWithClient,
  startWithClonedVm,
  guestBooted,
  type TestClient,
  until,
} from "../support/client.js";
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

/** The agent's interfaces once the guest has booted (polled: boot time varies with load). */
async function agentAnswer(): Promise<Record<string, unknown>[]> {
  for (let tries = 0; ; tries++) {
    const res = await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces");
    if (res.status === 200 || tries >= 100) return interfaces();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startAndBoot(): Promise<void> {
  await api.waitTask(
    "pve1",
    String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
  );
  await until(() => guestBooted(sim, 100), "the guest to boot");
}

const interfaces = async () =>
  (
    data(await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces")) as {
      result: Record<string, unknown>[];
    }
  ).result;

describe("routes/agent", () => {
  it("fails as PVE does before the guest boots, then answers", async () => {
    // A boot long enough that the first agent call lands before it even on a loaded machine.
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({ guestBootMs: 1500 }));
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
    const result = await agentAnswer();
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

  it("reads the seed's YAML as cloud-init does: anchors, aliases, yes as true, lax comments", async () => {
    await attachSeed({
      "meta-data": 'name: &host "web-7"# no space before the comment\nlocal-hostname: *host\n',
      "network-config": "version: 2\nethernets:\n  eth0: {dhcp4: yes}\n",
    });
    await startAndBoot();
    expect(sim.model.vms.get(100)?.guest.seedError).toBeUndefined();
    expect(data(await api.get("/nodes/pve1/qemu/100/agent/get-host-name"))).toEqual({
      result: { "host-name": "web-7" },
    });
    const eth0 = (await interfaces())[1];
    expect((eth0?.["ip-addresses"] as Record<string, unknown>[])[0]).toMatchObject({
      "ip-address-type": "ipv4",
      prefix: 24,
    });
  });

  it.each([
    [
      "a syntax error",
      "local-hostname: a: b\n",
      "Nested mappings are not allowed in compact mappings",
    ],
    [
      "an undefined alias",
      "local-hostname: *nowhere\n",
      "Unresolved alias (the anchor must be set before the alias): nowhere",
    ],
  ])("records a seed with %s in its YAML, and falls back to DHCP", async (_, meta, error) => {
    await attachSeed({ "meta-data": meta });
    await startAndBoot();
    expect(sim.model.vms.get(100)?.guest.seedError).toBe(error);
    expect(data(await api.get("/nodes/pve1/qemu/100/agent/get-host-name"))).toEqual({
      result: { "host-name": "vm100" },
    });
  });
});

describe("routes/agent with extra guest interfaces", () => {
  it("lists docker0 before eth0, and an APIPA and a link-local address on eth0", async () => {
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({
      guestBootMs: 150,
      guest: { dockerBridge: true, apipa: true },
    }));
    await startAndBoot();
    const result = await interfaces();
    expect(result.map((i) => i["name"])).toEqual(["lo", "docker0", "eth0"]);
    const eth0 = result[2]?.["ip-addresses"] as Record<string, unknown>[];
    expect(eth0.map((a) => a["ip-address"])).toEqual([
      expect.stringMatching(/^169\.254\./),
      "10.10.0.100",
      expect.stringMatching(/^fe80::/),
    ]);
  });
});

describe("DHCP leases over a simulator lifetime", () => {
  it("gives every VM an address when more VMs are created and destroyed than the pool holds", async () => {
    await api.close();
    await sim.close();
    // A /28 pool holds seven leases; ten VMs go through it one after the other.
    ({ sim, api } = await startWithClient({ guestBootMs: 20, bridges: { vmbr0: "10.10.0.0/28" } }));
    const seen: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      const vmid = 200 + i;
      const run = async (method: string, path: string, params?: Record<string, string | number>) =>
        api.waitTask("pve1", String(data(await api.call(method, path, params))));
      await run("POST", "/nodes/pve1/qemu/9000/clone", { newid: vmid, name: `vm${vmid}` });
      await run("POST", `/nodes/pve1/qemu/${vmid}/status/start`);
      await new Promise((r) => setTimeout(r, 80));
      const listed = data(
        await api.get(`/nodes/pve1/qemu/${vmid}/agent/network-get-interfaces`),
      ) as { result: { name: string; "ip-addresses": { "ip-address": string }[] }[] };
      seen.push(listed.result.find((nic) => nic.name === "eth0")?.["ip-addresses"][0]);
      await run("POST", `/nodes/pve1/qemu/${vmid}/status/stop`);
      await run("DELETE", `/nodes/pve1/qemu/${vmid}`);
    }
    expect(seen).toHaveLength(10);
    for (const lease of seen) expect(lease).toMatchObject({ "ip-address": "10.10.0.8" });
  });
});
