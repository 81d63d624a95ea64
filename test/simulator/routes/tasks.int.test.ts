import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator({ options: { taskDurationsMs: { qmclone: 200 } } });

describe("routes/tasks", () => {
  it("reports a running task without exitstatus and splits token users", async () => {
    const upid = String(
      data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100 })),
    );
    const status = data(
      await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`),
    ) as Record<string, unknown>;
    const [, node, pid, pstart, starttime] = upid.split(":");
    expect(status).toEqual({
      upid,
      node,
      pid: parseInt(pid ?? "", 16),
      pstart: parseInt(pstart ?? "", 16),
      starttime: parseInt(starttime ?? "", 16),
      type: "qmclone",
      id: "9000",
      user: "root@pam",
      tokenid: "ci",
      status: "running",
    });
  });

  it("pages the task log with start/limit and reports total", async () => {
    const upid = String(
      data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100 })),
    );
    await api.waitTask("pve1", upid);
    const res = await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/log?start=1&limit=1`);
    expect(res.body).toEqual({ total: 2, data: [{ n: 2, t: "TASK OK" }] });
    const all = await api.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/log?limit=0`);
    expect(all.body).toEqual({
      total: 2,
      data: [
        { n: 1, t: "create linked clone of drive scsi0 (shared:base-9000-disk-0)" },
        { n: 2, t: "TASK OK" },
      ],
    });
  });

  it("answers 400 for an unparsable or unknown UPID", async () => {
    const bad = await api.get("/nodes/pve1/tasks/nope/status");
    expect(bad.body?.["errors"]).toEqual({ upid: "unable to parse worker upid" });
    const unknown = await api.get(
      `/nodes/pve1/tasks/${encodeURIComponent("UPID:pve1:00000001:00000001:00000001:qmstart:1:root@pam:")}/status`,
    );
    expect(unknown.body?.["errors"]).toEqual({ upid: "no such task" });
  });

  it("needs Sys.Audit on the node for someone else's task", async () => {
    const upid = String(
      data(await api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100 })),
    );
    const other = api.withToken(sim.addToken("ops@pve!other", []));
    const res = await other.get(`/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`);
    expect([res.status, res.statusText]).toEqual([
      403,
      "Permission check failed (/nodes/pve1, Sys.Audit)",
    ]);
    await other.close();
  });

  it("lets a user read its tokens' tasks, but not a token its user's", async () => {
    sim.addUser("ops@pve", "pw", [{ path: "/vms", privileges: ["VM.Audit", "VM.PowerMgmt"] }]);
    const token = api.withToken(
      sim.addToken("ops@pve!ci", [
        { path: "/vms", privileges: ["VM.Clone", "VM.Allocate", "VM.Audit"] },
        { path: "/storage", privileges: ["Datastore.AllocateSpace"] },
        { path: "/sdn", privileges: ["SDN.Use"] },
      ]),
    );
    const upid = String(
      data(await token.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100 })),
    );
    const anon = api.withToken("");
    const login = data(
      await anon.call("POST", "/access/ticket", { username: "ops@pve", password: "pw" }),
    ) as { ticket: string; CSRFPreventionToken: string };
    const asUser = await anon.call(
      "GET",
      `/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`,
      undefined,
      { cookie: `PVEAuthCookie=${login.ticket}` },
    );
    expect([asUser.status, (asUser.body?.["data"] as Record<string, unknown>)["tokenid"]]).toEqual([
      200,
      "ci",
    ]);
    await token.waitTask("pve1", upid);
    const start = await anon.call("POST", "/nodes/pve1/qemu/100/status/start", undefined, {
      cookie: `PVEAuthCookie=${login.ticket}`,
      CSRFPreventionToken: login.CSRFPreventionToken,
    });
    const userTask = encodeURIComponent(String(data(start)));
    const asToken = await token.get(`/nodes/pve1/tasks/${userTask}/status`);
    expect([asToken.status, asToken.statusText]).toEqual([
      403,
      "Permission check failed (/nodes/pve1, Sys.Audit)",
    ]);
    await anon.close();
    await token.close();
  });
});
