import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm());
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

type Row = Record<string, unknown>;
const rows = async (path: string, client = api): Promise<Row[]> =>
  data(await client.get(path)) as Row[];

describe("routes/task-list", () => {
  it("lists a node's finished tasks newest first, with end time, status and total", async () => {
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const res = await api.get("/nodes/pve1/tasks");
    expect(res.body?.["total"]).toBe(2);
    const list = res.body?.["data"] as Row[];
    expect(list.map((r) => [r["type"], r["id"], r["status"]])).toEqual([
      ["qmstart", "100", "OK"],
      ["qmclone", "9000", "OK"],
    ]);
    expect(list[0]).toMatchObject({ node: "pve1", user: "root@pam", tokenid: "ci" });
    expect(Number(list[0]?.["endtime"])).toBeGreaterThanOrEqual(Number(list[0]?.["starttime"]));
  });

  it("filters by type, vmid, user, errors, status and pages with start/limit", async () => {
    sim.faults.failTasks({ type: "qmstart" }, "start failed: simulated");
    await api.waitTask(
      "pve1",
      String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    const types = async (query: string): Promise<unknown[]> =>
      (await rows(`/nodes/pve1/tasks?${query}`)).map((r) => r["type"]);
    expect(await types("typefilter=qmclone")).toEqual(["qmclone"]);
    expect(await types("vmid=100")).toEqual(["qmstart"]);
    expect(await types("errors=1")).toEqual(["qmstart"]);
    expect(await types("statusfilter=ok")).toEqual(["qmclone"]);
    expect(await types("statusfilter=ok,error")).toEqual(["qmstart", "qmclone"]);
    expect(await types("userfilter=ROOT")).toEqual(["qmstart", "qmclone"]);
    expect(await types("userfilter=nobody")).toEqual([]);
    const page = await api.get("/nodes/pve1/tasks?start=1&limit=1");
    expect([page.body?.["total"], (page.body?.["data"] as Row[]).map((r) => r["type"])]).toEqual([
      2,
      ["qmclone"],
    ]);
    const bad = await api.get("/nodes/pve1/tasks?statusfilter=fine");
    expect(bad.body?.["errors"]).toEqual({
      statusfilter: "value does not match the regex pattern",
    });
  });

  it("shows running tasks only with source=active or all, as RUNNING", async () => {
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({ taskDurationsMs: { qmstart: 2000 } }));
    const upid = String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start")));
    expect((await rows("/nodes/pve1/tasks")).map((r) => r["upid"])).not.toContain(upid);
    const active = await rows("/nodes/pve1/tasks?source=active");
    expect(active.map((r) => [r["upid"], r["status"], r["endtime"]])).toEqual([
      [upid, "RUNNING", undefined],
    ]);
    expect((await rows("/nodes/pve1/tasks?source=all")).map((r) => r["type"])).toEqual([
      "qmstart",
      "qmclone",
    ]);
    await api.waitTask("pve1", upid);
  });

  it("lists with source=all and since the tasks started since then, running first", async () => {
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({ taskDurationsMs: { qmstart: 2000, qmclone: 50 } }));
    const clone = String(
      data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 101, name: "b" })),
    );
    await api.waitTask("pve1", clone);
    const start = String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start")));
    const since = parseInt(clone.split(":")[4] ?? "", 16);
    const listed = await rows(`/nodes/pve1/tasks?source=all&since=${since}&limit=500`);
    expect(listed.map((r) => [r["upid"], r["status"]])).toEqual(
      expect.arrayContaining([
        [start, "RUNNING"],
        [clone, "OK"],
      ]),
    );
    expect(listed[0]?.["upid"]).toBe(start);
    expect(listed.every((r) => Number(r["starttime"]) >= since)).toBe(true);
    const later = await rows(`/nodes/pve1/tasks?source=all&since=${since + 3600}`);
    expect(later).toEqual([]);
    await api.waitTask("pve1", start);
  });

  it("shows another user's tasks only with Sys.Audit on the node", async () => {
    const own = api.withToken(
      sim.addToken("ops@pve!own", [{ path: "/vms", privileges: ["VM.Audit", "VM.PowerMgmt"] }]),
    );
    await own.waitTask(
      "pve1",
      String(data(await own.call("POST", "/nodes/pve1/qemu/100/status/start"))),
    );
    expect((await rows("/nodes/pve1/tasks", own)).map((r) => [r["type"], r["user"]])).toEqual([
      ["qmstart", "ops@pve"],
    ]);
    expect(await rows("/nodes/pve1/tasks")).toHaveLength(2);
    await own.close();
  });

  it("lists every node's tasks cluster-wide, for Sys.Audit on / only", async () => {
    await api.waitTask(
      "pve1",
      String(
        data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 101, target: "pve2" })),
      ),
    );
    const all = await rows("/cluster/tasks");
    expect(all.map((r) => [r["node"], r["type"]])).toContainEqual(["pve1", "qmclone"]);
    expect(all.every((r) => typeof r["upid"] === "string" && r["status"] === "OK")).toBe(true);
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    expect(await rows("/cluster/tasks", ro)).toEqual([]);
    await ro.close();
  });
});
