import { afterEach, describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { data, startWithClonedVm, guestBooted, type TestClient, until } from "../support/client.js";
import { buildIso } from "../support/iso-builder.js";
import { uploadFile } from "../support/upload.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

const META = "instance-id: vm-100\nlocal-hostname: web\n";
const WITH_AGENT = "#cloud-config\npackages:\n  - curl\n  - qemu-guest-agent\n";
const WITHOUT_AGENT = "#cloud-config\npackages:\n  - curl\n";

/**
 * Boots VM 100 with a NoCloud seed whose user-data is `userData` (none when undefined), plus
 * `extra` seed files and config keys set before the start.
 */
async function bootWith(
  options: SimulatorOptions,
  userData?: string,
  extra: { files?: Record<string, string>; config?: Record<string, string> } = {},
): Promise<void> {
  ({ sim, api } = await startWithClonedVm({ guestBootMs: 20, ...options }));
  const files: Record<string, string> = { "meta-data": META, ...extra.files };
  if (userData !== undefined) files["user-data"] = userData;
  if (extra.config !== undefined)
    await api.call("PUT", "/nodes/pve1/qemu/100/config", extra.config);
  const up = await uploadFile(sim, "pve1", "local", "seed-100.iso", buildIso(files));
  await api.waitTask("pve1", String(up.body?.["data"]));
  await api.call("PUT", "/nodes/pve1/qemu/100/config", {
    ide2: "local:iso/seed-100.iso,media=cdrom",
  });
  await api.waitTask(
    "pve1",
    String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
  );
}

/** Pings until the agent answers (up to 5 s): "OK", or PVE's last error text. */
async function pingUntilAnswered(): Promise<string> {
  let answer = await pingAfter(0);
  for (let i = 0; i < 100 && answer !== "OK"; i += 1) answer = await pingAfter(50);
  return answer;
}

/** What the agent answers `ping` with after `ms`: OK, or PVE's error text. */
async function pingAfter(ms: number): Promise<string> {
  await new Promise((r) => setTimeout(r, ms));
  const res = await api.call("POST", "/nodes/pve1/qemu/100/agent/ping");
  return res.status === 200 ? "OK" : res.statusText;
}

describe("guest/boot", () => {
  it("answers from a preinstalled agent once the guest booted", async () => {
    await bootWith({});
    expect(await pingUntilAnswered()).toBe("OK");
  });

  it("answers only after cloud-init's package step when user-data installs the agent", async () => {
    await bootWith({ guest: { agent: "user-data", agentDelayMs: 1000 } }, WITH_AGENT);
    expect(await pingAfter(0)).toBe("QEMU guest agent is not running");
    expect(await pingUntilAnswered()).toBe("OK");
  });

  it("never answers when user-data does not install the agent, or the seed has no user-data", async () => {
    await bootWith({ guest: { agent: "user-data" } }, WITHOUT_AGENT);
    expect(await pingAfter(150)).toBe("QEMU guest agent is not running");
    expect(sim.model.vms.get(100)?.guest.hostname).toBe("web");
    await api.close();
    await sim.close();
    await bootWith({ guest: { agent: "user-data" } });
    expect(await pingAfter(150)).toBe("QEMU guest agent is not running");
  });

  it("never answers from a guest whose agent never appears, whatever the seed says", async () => {
    await bootWith({ guest: { agent: "never" } }, WITH_AGENT);
    expect(await pingAfter(150)).toBe("QEMU guest agent is not running");
    const ifaces = await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces");
    expect(ifaces.status).toBe(500);
  });

  it("answers late from a slow preinstalled agent", async () => {
    await bootWith({ guest: { agentDelayMs: 1000 } });
    expect(await pingAfter(0)).toBe("QEMU guest agent is not running");
    expect(await pingUntilAnswered()).toBe("OK");
  });

  it("lists every NIC of a multi-NIC guest, each with its own DHCP lease", async () => {
    const network = "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n  eth1:\n    dhcp4: true\n";
    await bootWith({}, undefined, {
      files: { "network-config": network },
      config: { net1: "virtio,bridge=vmbr0" },
    });
    await until(() => guestBooted(sim, 100), "the guest to boot");
    type Nic = {
      name: string;
      "ip-addresses": { "ip-address": string; "ip-address-type": string }[];
    };
    const nics = (
      data(await api.get("/nodes/pve1/qemu/100/agent/network-get-interfaces")) as {
        result: Nic[];
      }
    ).result;
    expect(nics.map((n) => n.name)).toEqual(["lo", "eth0", "eth1"]);
    const v4 = nics
      .slice(1)
      .map((n) => n["ip-addresses"].find((a) => a["ip-address-type"] === "ipv4")?.["ip-address"]);
    expect(v4.every((ip) => ip?.startsWith("10.10.0.") === true)).toBe(true);
    expect(new Set(v4).size).toBe(2);
  });
});
