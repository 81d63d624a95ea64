import { describe, expect, it } from "vitest";
import { data, startWithClient } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ clonedVm: true });

const config = async (): Promise<Record<string, unknown>> =>
  data(await api.get("/nodes/pve1/qemu/100/config")) as Record<string, unknown>;

describe("routes/qemu-config", () => {
  it("applies a PUT at once on a stopped VM and answers data null", async () => {
    const res = await api.call("PUT", "/nodes/pve1/qemu/100/config", {
      cores: 4,
      tags: "b,A, a",
      description: "hello",
    });
    expect(res.body).toEqual({ data: null });
    expect(await config()).toMatchObject({ cores: 4, tags: "a;b", description: "hello" });
  });

  it("generates a MAC when net0 has none", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { net1: "virtio,bridge=vmbr0" });
    expect((await config())["net1"]).toMatch(/^virtio=BC:24:11:[0-9A-F:]{8},bridge=vmbr0$/);
  });

  it("answers 'checksum mismatch' for a stale digest", async () => {
    const res = await api.call("PUT", "/nodes/pve1/qemu/100/config", {
      cores: 2,
      digest: "0".repeat(40),
    });
    expect([res.status, res.statusText]).toEqual([
      500,
      "checksum mismatch (file change by other user?)",
    ]);
  });

  it("answers 'VM is locked' under a foreign lock and 'no options specified' for an empty update", async () => {
    sim.faults.setLock(100, "snapshot-delete");
    expect((await api.call("PUT", "/nodes/pve1/qemu/100/config", { cores: 2 })).statusText).toBe(
      "VM is locked (snapshot-delete)",
    );
    sim.faults.setLock(100, null);
    expect((await api.call("PUT", "/nodes/pve1/qemu/100/config", {})).statusText).toBe(
      "no options specified",
    );
  });

  it("keeps non-hotpluggable changes pending on a running VM", async () => {
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { cores: 6, name: "web2" });
    expect(await config()).toMatchObject({ cores: 6, name: "web2" });
    expect(data(await api.get("/nodes/pve1/qemu/100/config?current=1"))).toMatchObject({
      cores: 2,
      name: "web2",
    });
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/stop"))),
    );
    expect(data(await api.get("/nodes/pve1/qemu/100/config?current=1"))).toMatchObject({
      cores: 6,
    });
  });

  it("runs POST config as a qmconfig task", async () => {
    const upid = String(
      data(await api.call("POST", "/nodes/pve1/qemu/100/config", { memory: "4096" })),
    );
    expect(upid).toContain(":qmconfig:100:root@pam!ci:");
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect((await config())["memory"]).toBe("4096");
  });

  it("deletes keys and rejects setting and deleting the same key", async () => {
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { delete: "serial0" });
    expect((await config())["serial0"]).toBeUndefined();
    const res = await api.call("PUT", "/nodes/pve1/qemu/100/config", { cores: 2, delete: "cores" });
    expect(res.body?.["errors"]).toEqual({
      delete: "you can't use '-cores' and -delete cores' at the same time",
    });
  });

  it("answers 403 per key privilege, and 500 for a key only root may set", async () => {
    const token = api.withToken(
      sim.addToken("ops@pve!opts", [{ path: "/vms", privileges: ["VM.Config.Options"] }]),
    );
    expect((await token.call("PUT", "/nodes/pve1/qemu/100/config", { name: "x" })).status).toBe(
      200,
    );
    const cpu = await token.call("PUT", "/nodes/pve1/qemu/100/config", { cores: 2 });
    expect([cpu.status, cpu.statusText]).toEqual([
      403,
      "Permission check failed (/vms/100, VM.Config.CPU)",
    ]);
    const lock = await api.call("PUT", "/nodes/pve1/qemu/100/config", { lock: "backup" });
    expect([lock.status, lock.statusText]).toEqual([500, "only root can set 'lock' config"]);
    const none = api.withToken(sim.addToken("ops@pve!none", []));
    expect((await none.call("PUT", "/nodes/pve1/qemu/100/config", { name: "x" })).statusText).toBe(
      "Permission check failed (/vms/100, VM.Config.Disk|VM.Config.CDROM|VM.Config.CPU|VM.Config.Memory|VM.Config.Network|VM.Config.HWType|VM.Config.Options|VM.Config.Cloudinit)",
    );
    await Promise.all([token.close(), none.close()]);
  });

  it("answers the missing-VM 500 and 403 before it without VM.Audit", async () => {
    const res = await api.get("/nodes/pve1/qemu/555/config");
    expect(res.body).toEqual({
      data: null,
      message: "Configuration file 'nodes/pve1/qemu-server/555.conf' does not exist\n",
    });
    const elsewhere = await api.get("/nodes/pve2/qemu/100/config");
    expect(elsewhere.statusText).toBe(
      "Configuration file 'nodes/pve2/qemu-server/100.conf' does not exist",
    );
    const token = api.withToken(
      sim.addToken("ops@pve!xx", [{ path: "/vms/100", privileges: ["VM.Audit"] }]),
    );
    expect((await token.get("/nodes/pve1/qemu/555/config")).statusText).toBe(
      "Permission check failed (/vms/555, VM.Audit)",
    );
    await token.close();
  });

  it("omits message from error bodies in pre-5.2 mode", async () => {
    const old = await startWithClient({ errorMessageInBody: false });
    const res = await old.api.get("/nodes/pve1/qemu/555/config");
    expect([res.status, res.statusText, res.body]).toEqual([
      500,
      "Configuration file 'nodes/pve1/qemu-server/555.conf' does not exist",
      { data: null },
    ]);
    await old.api.close();
    await old.sim.close();
  });
});
