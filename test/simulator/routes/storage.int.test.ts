import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";
import { IMPORT_STORAGES } from "../support/image-server.js";
import { uploadFile } from "../support/upload.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClient());
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

describe("routes/storage", () => {
  it("lists node storages, filtered by content", async () => {
    const all = data(await api.get("/nodes/pve1/storage")) as Record<string, unknown>[];
    expect(all.map((s) => [s["storage"], s["type"], s["content"], s["shared"]])).toEqual([
      ["local", "dir", "backup,iso,vztmpl", 0],
      ["local-lvm", "lvmthin", "images,rootdir", 0],
      ["shared", "nfs", "images,iso", 1],
    ]);
    const iso = data(await api.get("/nodes/pve1/storage?content=iso")) as Record<string, unknown>[];
    expect(iso.map((s) => s["storage"])).toEqual(["local", "shared"]);
  });

  it("uploads an ISO as an imgcopy task, visible in the content list when it ends", async () => {
    const res = await uploadFile(sim, "pve1", "local", "seed 1.iso", Buffer.alloc(4096, 1));
    const upid = String(res.body?.["data"]);
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::root@pam!ci:$/);
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    const content = data(await api.get("/nodes/pve1/storage/local/content?content=iso")) as Record<
      string,
      unknown
    >[];
    expect(content).toEqual([
      {
        volid: "local:iso/seed_1.iso",
        format: "iso",
        size: 4096,
        ctime: content[0]?.["ctime"],
        content: "iso",
      },
    ]);
    expect(data(await api.get("/nodes/pve2/storage/local/content"))).toEqual([]);
  });

  it("verifies an upload checksum in the task", async () => {
    const bytes = Buffer.from("hello");
    const good = createHash("sha256").update(bytes).digest("hex");
    const ok = await uploadFile(sim, "pve1", "local", "a.iso", bytes, {
      content: "iso",
      "checksum-algorithm": "sha256",
      checksum: good,
    });
    expect((await api.waitTask("pve1", String(ok.body?.["data"])))["exitstatus"]).toBe("OK");
    const bad = await uploadFile(sim, "pve1", "local", "b.iso", bytes, {
      content: "iso",
      "checksum-algorithm": "sha256",
      checksum: "00",
    });
    expect((await api.waitTask("pve1", String(bad.body?.["data"])))["exitstatus"]).toBe(
      `checksum mismatch: got '${good}' != expect '00'`,
    );
  });

  it("rejects wrong extensions, field names and storages", async () => {
    const ext = await uploadFile(sim, "pve1", "local", "seed.txt", Buffer.from("x"));
    expect(ext.body).toEqual({
      data: null,
      errors: { filename: "wrong file extension" },
      message: "Parameter verification failed.\n",
    });
    const field = await uploadFile(
      sim,
      "pve1",
      "local",
      "seed.iso",
      Buffer.from("x"),
      { content: "iso" },
      "file",
    );
    expect(field.statusText).toBe("wrong field name 'file' for file upload, expected 'filename'");
    const lvm = await uploadFile(sim, "pve1", "local-lvm", "seed.iso", Buffer.from("x"));
    expect(lvm.statusText).toBe("can't upload to storage type 'lvmthin'");
  });

  it("takes import uploads only as .ova/.qcow2/.raw/.vmdk, stored with that format", async () => {
    const img = await uploadFile(sim, "pve1", "shared", "noble.img", Buffer.from("x"), {
      content: "import",
    });
    expect(img.body?.["errors"]).toEqual({ filename: "invalid filename or wrong extension" });
    const notImport = await uploadFile(sim, "pve1", "local", "noble.qcow2", Buffer.from("x"), {
      content: "import",
    });
    expect(notImport.statusText).toBe("storage 'local' does not support 'import' content");
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClient({ storages: IMPORT_STORAGES }));
    const ok = await uploadFile(sim, "pve1", "local", "noble.qcow2", Buffer.alloc(512, 1), {
      content: "import",
    });
    expect((await api.waitTask("pve1", String(ok.body?.["data"])))["exitstatus"]).toBe("OK");
    const listed = data(await api.get("/nodes/pve1/storage/local/content")) as Record<
      string,
      unknown
    >[];
    expect(listed.map((v) => [v["volid"], v["format"], v["size"]])).toEqual([
      ["local:import/noble.qcow2", "qcow2", 512],
    ]);
  });

  it("accepts a large upload streamed in chunks and keeps only its size", async () => {
    const small = await startWithClient({ maxRetainedFileBytes: 1024 });
    const res = await uploadFile(
      small.sim,
      "pve1",
      "local",
      "big.iso",
      Buffer.alloc(3 * 1024 * 1024, 7),
    );
    await small.api.waitTask("pve1", String(res.body?.["data"]));
    const [volume] = small.sim.model.volumes("pve1", "local");
    expect([volume?.size, volume?.data]).toEqual([3 * 1024 * 1024, undefined]);
    await small.api.close();
    await small.sim.close();
  });

  it("deletes content as an imgdel task, even an ISO a stopped VM still references", async () => {
    const up = await uploadFile(sim, "pve1", "local", "x.iso", Buffer.from("x"));
    await api.waitTask("pve1", String(up.body?.["data"]));
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100 }))),
    );
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { ide2: "local:iso/x.iso,media=cdrom" });
    const upid = String(
      data(await api.call("DELETE", "/nodes/pve1/storage/local/content/local:iso/x.iso")),
    );
    expect(upid).toContain(":imgdel:local:root@pam!ci:");
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(data(await api.get("/nodes/pve1/storage/local/content"))).toEqual([]);
    expect(sim.model.vms.get(100)?.config["ide2"]).toBe("local:iso/x.iso,media=cdrom,size=1");
  });

  it("ends a delete of a missing file OK with a log line, and rejects a storage mismatch", async () => {
    const upid = String(
      data(await api.call("DELETE", "/nodes/pve1/storage/local/content/iso%2Fnone.iso")),
    );
    await api.waitTask("pve1", upid);
    const log = data(await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`)) as {
      t: string;
    }[];
    expect(log.map((l) => l.t)).toEqual([
      "disk image '/var/lib/vz/template/iso/none.iso' does not exist",
      "TASK OK",
    ]);
    const mismatch = await api.call("DELETE", "/nodes/pve1/storage/local/content/shared:iso/x.iso");
    expect(mismatch.body?.["errors"]).toEqual({ volume: "storage ID mismatch (shared != local)" });
  });

  it("answers 403 with the storage ACL path", async () => {
    const token = api.withToken(
      sim.addToken("ops@pve!st", [{ path: "/storage/local", privileges: ["Datastore.Audit"] }]),
    );
    expect((await token.get("/nodes/pve1/storage/local/content")).status).toBe(200);
    expect((await token.get("/nodes/pve1/storage/shared/content")).statusText).toBe(
      "Permission check failed (/storage/shared, Datastore.Audit|Datastore.AllocateSpace)",
    );
    expect(
      (await token.call("DELETE", "/nodes/pve1/storage/local/content/local:iso/x.iso")).statusText,
    ).toBe("Permission check failed (/storage/local, Datastore.Allocate)");
    const up = await uploadFile(sim, "pve1", "local", "x.iso", Buffer.from("x"));
    expect(up.status).toBe(200);
    await token.close();
  });
});
