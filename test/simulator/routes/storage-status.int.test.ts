import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { uploadFile } from "../support/upload.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator();

type Row = Record<string, unknown>;

describe("routes/storage-status", () => {
  it("reports one storage as the storage index does, without used_fraction", async () => {
    const up = await uploadFile(sim, "pve1", "local", "tiny.iso", Buffer.alloc(4096, 1));
    await api.waitTask("pve1", String(up.body?.["data"]));
    const status = data(await api.get("/nodes/pve1/storage/local/status")) as Row;
    const row = (data(await api.get("/nodes/pve1/storage")) as Row[]).find(
      (r) => r["storage"] === "local",
    );
    const { storage: _s, used_fraction: _f, ...fromIndex } = row ?? {};
    expect(status).toEqual(fromIndex);
    expect(status["used"]).toBe(4096);
  });

  it("names a storage that does not exist or is not on the node", async () => {
    const missing = await api.get("/nodes/pve1/storage/nosuch/status");
    expect([missing.status, missing.statusText]).toEqual([500, "storage 'nosuch' does not exist"]);
  });

  it("reads one volume's attributes by volid or bare name, and fails for a missing one", async () => {
    const up = await uploadFile(sim, "pve1", "local", "tiny.iso", Buffer.alloc(2048, 1));
    await api.waitTask("pve1", String(up.body?.["data"]));
    const byVolid = data(
      await api.get(
        `/nodes/pve1/storage/local/content/${encodeURIComponent("local:iso/tiny.iso")}`,
      ),
    );
    expect(byVolid).toEqual({
      path: "/var/lib/vz/template/iso/tiny.iso",
      size: 2048,
      used: 2048,
      format: "iso",
    });
    expect(data(await api.get("/nodes/pve1/storage/local/content/iso/tiny.iso"))).toEqual(byVolid);
    const gone = await api.get("/nodes/pve1/storage/local/content/iso/other.iso");
    expect([gone.status, gone.statusText]).toEqual([
      500,
      "file_size_info on 'local:iso/other.iso' failed",
    ]);
    const mismatch = await api.get("/nodes/pve1/storage/local/content/shared:iso/tiny.iso");
    expect(mismatch.body?.["errors"]).toEqual({ volume: "storage ID mismatch (shared != local)" });
  });

  it("needs Datastore.Audit or AllocateSpace on the storage", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!vm", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const denied = await ro.get("/nodes/pve1/storage/local/status");
    expect(denied.statusText).toBe(
      "Permission check failed (/storage/local, Datastore.Audit|Datastore.AllocateSpace)",
    );
    await ro.close();
  });
});
