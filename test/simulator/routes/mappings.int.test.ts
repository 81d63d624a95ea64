import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

const gpu = { id: "gpu0", map: ["node=pve1,path=0000:01:00.0,id=10de:2204"] };

describe("routes/mappings", () => {
  it("creates a PCI mapping with per-node entries, reads it back, updates and deletes it", async () => {
    ({ sim, api } = await startWithClient());
    expect((await api.call("POST", "/cluster/mapping/pci", gpu)).status).toBe(200);
    expect(data(await api.get("/cluster/mapping/pci/gpu0"))).toMatchObject({ map: gpu.map });

    const map = [...gpu.map, "node=pve2,path=0000:02:00.0,id=10de:2204"];
    expect((await api.call("PUT", "/cluster/mapping/pci/gpu0", { map })).status).toBe(200);
    expect(data(await api.get("/cluster/mapping/pci"))).toEqual([
      expect.objectContaining({ id: "gpu0", map }),
    ]);

    expect((await api.call("DELETE", "/cluster/mapping/pci/gpu0")).status).toBe(200);
    const gone = await api.get("/cluster/mapping/pci/gpu0");
    expect([gone.status, gone.statusText]).toEqual([500, "mapping 'gpu0' not found"]);
  });

  it("refuses an id twice and a node entry that does not fit the type's format", async () => {
    ({ sim, api } = await startWithClient());
    await api.call("POST", "/cluster/mapping/usb", { id: "key", map: ["node=pve1,id=1050:0407"] });
    const twice = await api.call("POST", "/cluster/mapping/usb", {
      id: "key",
      map: ["node=pve1,id=1050:0407"],
    });
    expect(twice.statusText).toBe("create hardware mapping failed: usb ID 'key' already defined");
    const bad = await api.call("POST", "/cluster/mapping/dir", {
      id: "data",
      map: ["node=pve1,path=data"],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("map.path");
  });

  it("lists only the mappings a token may see, and wants Mapping.Modify to create one", async () => {
    ({ sim, api } = await startWithClient());
    await api.call("POST", "/cluster/mapping/pci", gpu);
    await api.call("POST", "/cluster/mapping/pci", {
      id: "nic0",
      map: ["node=pve1,path=0000:03:00.0,id=8086:1533"],
    });
    const user = api.withToken(
      sim.addToken("ops@pve!gpu", [{ path: "/mapping/pci/gpu0", privileges: ["Mapping.Use"] }]),
    );
    expect(
      (data(await user.get("/cluster/mapping/pci")) as { id: string }[]).map((m) => m.id),
    ).toEqual(["gpu0"]);
    const create = await user.call("POST", "/cluster/mapping/pci", { id: "x1", map: gpu.map });
    expect([create.status, create.statusText]).toEqual([
      403,
      "Permission check failed (/mapping/pci, Mapping.Modify)",
    ]);
    await user.close();
  });

  it("keeps the mappings in the state file across a restart", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "sim-mappings-")), "state.json");
    ({ sim, api } = await startWithClient({ stateFile }));
    await api.call("POST", "/cluster/mapping/pci", gpu);
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClient({ stateFile }));
    expect(data(await api.get("/cluster/mapping/pci/gpu0"))).toMatchObject({ map: gpu.map });
  });

  it("answers 501 on PVE 7.4, which has no resource mappings", async () => {
    ({ sim, api } = await startWithClient({ pveVersion: "7.4" }));
    const res = await api.get("/cluster/mapping/pci");
    expect([res.status, res.statusText]).toEqual([
      501,
      "Method 'GET /cluster/mapping/pci' not implemented",
    ]);
  });
});
