import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../simulator/index.js";
import { data, startWithClient, TestClient } from "./support/client.js";

const dir = mkdtempSync(join(tmpdir(), "pve-sim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("index", () => {
  it("keeps VMs, volumes and tasks in the state file across a restart", async () => {
    const stateFile = join(dir, "state.json");
    const first = await startWithClient({ stateFile });
    const upid = String(
      data(
        await first.api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100, name: "kept" }),
      ),
    );
    await first.api.waitTask("pve1", upid);
    await first.api.close();
    await first.sim.close();
    const second = await startWithClient({ stateFile });
    expect(data(await second.api.get("/nodes/pve1/qemu/100/config"))).toMatchObject({
      name: "kept",
    });
    expect((await second.api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(second.sim.model.volumes("pve1", "shared").map((v) => v.volid)).toContain(
      "shared:base-9000-disk-0/vm-100-disk-0",
    );
    await second.api.close();
    await second.sim.close();
  });

  it("finishes running tasks on close so the saved state is complete", async () => {
    const stateFile = join(dir, "close.json");
    const { sim, api } = await startWithClient({ stateFile, taskDurationsMs: { qmclone: 60_000 } });
    await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 101, name: "fast" });
    await api.close();
    await sim.close();
    const saved = JSON.parse(readFileSync(stateFile, "utf8")) as {
      vms: { vmid: number; config: Record<string, unknown> }[];
    };
    expect(saved.vms.find((vm) => vm.vmid === 101)?.config["name"]).toBe("fast");
  });

  it("writes the CA file and serves plain HTTP on request", async () => {
    const caFile = join(dir, "ca.pem");
    const tls = await startSimulator({ caFile });
    expect(readFileSync(caFile, "utf8")).toBe(tls.caCertPem);
    expect(tls.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await tls.close();
    const plain = await startSimulator({ tls: false });
    expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(plain.caCertPem).toBe("");
    const api = new TestClient(plain);
    expect((await api.get("/version")).status).toBe(200);
    await api.close();
    await plain.close();
  });

  it("refuses a non-loopback host unless allowed", async () => {
    await expect(startSimulator({ host: "0.0.0.0" })).rejects.toThrow(
      "refusing to listen on non-loopback host '0.0.0.0' without allowNonLoopback",
    );
  });

  it("seeds the default templates and exposes an apiToken in PROXMOX_VE_API_TOKEN format", async () => {
    const { sim, api } = await startWithClient();
    expect(sim.apiToken).toMatch(/^root@pam!ci=[0-9a-f-]{36}$/);
    expect(sim.model.vms.get(9000)).toMatchObject({
      node: "pve1",
      config: { name: "debian-12-cloud", template: 1, scsi0: "shared:base-9000-disk-0,size=2G" },
    });
    expect(sim.model.vms.get(9001)).toMatchObject({
      node: "pve2",
      config: { name: "ubuntu-24-04-cloud", template: 1 },
    });
    await api.close();
    await sim.close();
  });
});
