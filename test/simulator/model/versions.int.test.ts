import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  PVE_VERSIONS,
  startSimulator,
  VERSION_PROFILES,
  type PveVersion,
  type Simulator,
} from "../../../simulator/index.js";
import { versionProfile } from "../../../simulator/model/versions.js";
import { data, guestBooted, startWithClonedVm, TestClient, until } from "../support/client.js";

/** Every privilege a VM user needs, minus the guest-agent and SDN ones the cases vary. */
const VM_USER = ["VM.Audit", "VM.Clone", "VM.Allocate", "VM.Config.Network", "VM.PowerMgmt"];

let open: { sim: Simulator; api: TestClient }[] = [];
afterEach(async () => {
  for (const { sim, api } of open) {
    await api.close();
    await sim.close();
  }
  open = [];
});

async function simAs(pveVersion: PveVersion): Promise<{ sim: Simulator; api: TestClient }> {
  const started = await startWithClonedVm({ pveVersion });
  open.push(started);
  return started;
}

async function startAndWaitForAgent(api: TestClient): Promise<void> {
  await api.waitTask(
    "pve1",
    String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
  );
  await until(() => guestBooted(api.sim, 100), "the guest to boot");
}

describe.each(PVE_VERSIONS)("PVE %s profile", (pveVersion) => {
  const profile = VERSION_PROFILES[pveVersion];

  it("reports its version strings on /version and /nodes/{node}/version", async () => {
    const { api } = await simAs(pveVersion);
    expect(data(await api.get("/version"))).toEqual(profile.version);
    expect(data(await api.get("/nodes/pve1/version"))).toEqual(profile.version);
    expect(profile.version.release).toBe(pveVersion);
  });

  it("puts the die text in the error body only from pve-http-server 5.2.0 on", async () => {
    const { api } = await simAs(pveVersion);
    const res = await api.get("/nodes/pve1/qemu/999/config");
    const text = "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist";
    expect([res.status, res.statusText]).toEqual([500, text]);
    expect(res.body).toEqual(
      pveVersion === "7.4" ? { data: null } : { data: null, message: `${text}\n` },
    );
  });

  it("answers an unreadable JSON body as the HTTP server does: 501 bare before 5.2.0, 500 with text since", async () => {
    const { sim } = await simAs(pveVersion);
    const dispatcher = new Agent({ connect: { ca: sim.caCertPem } });
    const res = await request(`${sim.url}/api2/json/nodes/pve1/qemu/100/config`, {
      method: "PUT",
      headers: { authorization: `PVEAPIToken=${sim.apiToken}`, "content-type": "application/json" },
      body: "{not json",
      dispatcher,
    });
    const body = await res.body.text();
    await dispatcher.close();
    expect(res.statusCode).toBe(pveVersion === "7.4" ? 501 : 500);
    expect(body).toBe(pveVersion === "7.4" ? "" : "malformed JSON string\n");
    // Nothing was changed by the refused request.
    expect(sim.model.vms.get(100)?.config["name"]).toBe("web");
  });

  it("lets the guest-agent reads through with the release's agent privileges only", async () => {
    const { sim, api } = await simAs(pveVersion);
    await startAndWaitForAgent(api);
    const allowed = api.withToken(
      sim.addToken("agent@pve!ok", [
        { path: "/", privileges: [...VM_USER, profile.agentPrivileges[0] ?? ""] },
      ]),
    );
    const denied = api.withToken(
      sim.addToken("agent@pve!no", [{ path: "/", privileges: VM_USER }]),
    );
    open.push({ sim, api: allowed }, { sim, api: denied });
    const path = "/nodes/pve1/qemu/100/agent/network-get-interfaces";
    expect((await allowed.get(path)).status).toBe(200);
    const refused = await denied.get(path);
    expect([refused.status, refused.statusText]).toEqual([
      403,
      `Permission check failed (/vms/100, ${profile.agentPrivileges.join("|")})`,
    ]);
  });

  it("refuses a role with a privilege this release does not know, as pveum does", async () => {
    const { sim } = await simAs(pveVersion);
    const unknown = pveVersion === "9.1" ? "VM.Monitor" : "VM.GuestAgent.Audit";
    expect(() => sim.addToken("old@pve!role", [{ path: "/", privileges: [unknown] }])).toThrow(
      `invalid privilege '${unknown}'`,
    );
  });

  it(`resizes ${profile.resizeIsTask ? "in a resize task" : "at once and answers null"}`, async () => {
    const { sim, api } = await simAs(pveVersion);
    const res = await api.call("PUT", "/nodes/pve1/qemu/100/resize", { disk: "scsi0", size: "4G" });
    expect(res.status).toBe(200);
    if (profile.resizeIsTask) {
      expect(String(data(res))).toMatch(/^UPID:pve1:[0-9A-F:]+:resize:100:root@pam!ci:$/);
      await api.waitTask("pve1", String(data(res)));
    } else {
      expect(data(res)).toBeNull();
    }
    expect(String(sim.model.vms.get(100)?.config["scsi0"])).toContain("size=4G");
  });

  it(`runs machine versions up to its QEMU ${profile.qemuVersion} and refuses a newer one at start, with PVE's text`, async () => {
    const { sim, api } = await simAs(pveVersion);
    const [major = 0, minor = 0] = profile.qemuVersion.split(".").map(Number);
    const start = async () =>
      api.waitTask(
        "pve1",
        String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
      );

    await api.putConfig("pve1", 100, { machine: `pc-q35-${major + 1}.0` });
    expect((await start())["exitstatus"]).toBe(
      `Installed QEMU version '${profile.qemuVersion}' is too old to run machine type ` +
        `'pc-q35-${major + 1}.0+pve0', please upgrade node 'pve1'`,
    );
    expect(sim.model.vms.get(100)?.status).toBe("stopped");

    await api.putConfig("pve1", 100, { machine: `pc-q35-${major}.${minor}` });
    expect((await start())["exitstatus"]).toBe("OK");
    expect(sim.model.vms.get(100)?.status).toBe("running");
  });

  it(`${profile.poolAllowMove ? "moves a VM between pools with allow-move" : "refuses allow-move on the pool update as unknown"}`, async () => {
    const { api } = await simAs(pveVersion);
    for (const poolid of ["a", "b"]) await api.call("POST", "/pools", { poolid });
    await api.call("PUT", "/pools/a", { vms: "100" });
    const moved = await api.call("PUT", "/pools/b", { vms: "100", "allow-move": 1 });
    if (profile.poolAllowMove) {
      expect(moved.status).toBe(200);
      expect((data(await api.get("/pools/b")) as { members: unknown[] }).members).toHaveLength(1);
    } else {
      expect([moved.status, moved.body?.["errors"]]).toEqual([
        400,
        {
          "allow-move":
            "property is not defined in schema and the schema does not allow additional properties",
        },
      ]);
      expect((data(await api.get("/pools/a")) as { members: unknown[] }).members).toHaveLength(1);
    }
  });

  it(`reports a resize of a missing VM ${profile.resizeIsTask ? "in the task" : "in the answer"}`, async () => {
    const { api } = await simAs(pveVersion);
    const res = await api.call("PUT", "/nodes/pve1/qemu/999/resize", { disk: "scsi0", size: "4G" });
    const missing = "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist";
    if (profile.resizeIsTask) {
      expect(res.status).toBe(200);
      expect((await api.waitTask("pve1", String(data(res))))["exitstatus"]).toBe(missing);
    } else {
      expect([res.status, res.statusText]).toEqual([500, missing]);
    }
  });

  it(`${profile.hostPressureInStatus ? "adds" : "has no"} memhost and pressure fields on running status`, async () => {
    const { api } = await simAs(pveVersion);
    await startAndWaitForAgent(api);
    const current = data(await api.get("/nodes/pve1/qemu/100/status/current")) as object;
    const row = (data(await api.get("/nodes/pve1/qemu")) as object[]).find(
      (vm) => (vm as { vmid: number }).vmid === 100,
    ) as object;
    for (const answer of [current, row]) {
      expect("memhost" in answer).toBe(profile.hostPressureInStatus);
      expect("pressurememoryfull" in answer).toBe(profile.hostPressureInStatus);
    }
    expect("clipboard" in current).toBe(profile.clipboardInStatus);
    const listed = (data(await api.get("/cluster/resources?type=vm")) as object[]).find(
      (vm) => (vm as { vmid: number }).vmid === 100,
    ) as object;
    expect("memhost" in listed).toBe(profile.hostPressureInStatus);
  });

  it(`${profile.bridgeNeedsSdnUse ? "needs" : "does not need"} SDN.Use on the bridge, and on its VLAN tag when one is set`, async () => {
    const { sim, api } = await simAs(pveVersion);
    const noSdn = api.withToken(
      sim.addToken("net@pve!nosdn", [{ path: "/", privileges: VM_USER }]),
    );
    const tagOnly = api.withToken(
      sim.addToken("net@pve!tag", [
        { path: "/", privileges: VM_USER },
        ...(profile.bridgeNeedsSdnUse
          ? [{ path: "/sdn/zones/localnetwork/vmbr0/20", privileges: ["SDN.Use"] }]
          : []),
      ]),
    );
    open.push({ sim, api: noSdn }, { sim, api: tagOnly });
    const untagged = await noSdn.call("PUT", "/nodes/pve1/qemu/100/config", {
      net0: "virtio,bridge=vmbr0",
    });
    const tagged = await tagOnly.call("PUT", "/nodes/pve1/qemu/100/config", {
      net0: "virtio,bridge=vmbr0,tag=20",
    });
    const otherTag = await tagOnly.call("PUT", "/nodes/pve1/qemu/100/config", {
      net0: "virtio,bridge=vmbr0,tag=30",
    });
    expect(tagged.status).toBe(200);
    if (profile.bridgeNeedsSdnUse) {
      expect([untagged.status, untagged.statusText]).toEqual([
        403,
        "Permission check failed (/sdn/zones/localnetwork/vmbr0, SDN.Use)",
      ]);
      expect(otherTag.statusText).toBe(
        "Permission check failed (/sdn/zones/localnetwork/vmbr0/30, SDN.Use)",
      );
      expect(String(sim.model.vms.get(100)?.config["net0"])).toContain("tag=20");
    } else {
      expect([untagged.status, otherTag.status]).toEqual([200, 200]);
      expect(String(sim.model.vms.get(100)?.config["net0"])).toContain("tag=30");
    }
  });
});

describe("choosing a profile", () => {
  it("loads a state file written as another release", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pve-sim-versions-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startWithClonedVm({ pveVersion: "8.4", stateFile });
      await first.api.close();
      await first.sim.close();
      for (const pveVersion of ["7.4", "9.1"] as const) {
        const sim = await startSimulator({ pveVersion, stateFile });
        const api = new TestClient(sim);
        try {
          const config = data(await api.get("/nodes/pve1/qemu/100/config")) as { name: string };
          expect([pveVersion, config.name]).toEqual([pveVersion, "web"]);
        } finally {
          await api.close();
          await sim.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes PVE_SIM_VERSION when no version is passed, and the passed one over it", () => {
    expect(versionProfile(undefined, { PVE_SIM_VERSION: "7.4" }).pveVersion).toBe("7.4");
    expect(versionProfile("9.1", { PVE_SIM_VERSION: "7.4" }).pveVersion).toBe("9.1");
    expect(versionProfile(undefined, {}).pveVersion).toBe("8.4");
  });

  it("refuses an unknown version, naming where it came from and the versions it knows", async () => {
    expect(() => versionProfile(undefined, { PVE_SIM_VERSION: "6.4" })).toThrow(
      "unknown PVE version PVE_SIM_VERSION=6.4: the simulator answers as 7.4, 8.4, 9.1",
    );
    await expect(startSimulator({ pveVersion: "8.0" as PveVersion })).rejects.toThrow(
      "unknown PVE version '8.0'",
    );
  });
});
