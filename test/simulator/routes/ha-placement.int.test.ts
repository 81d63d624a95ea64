import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

type Row = Record<string, unknown>;

describe("routes/ha-placement", () => {
  it("creates, reads, updates and lists HA groups on an 8.4 cluster", async () => {
    ({ sim, api } = await startWithClonedVm());
    await api.call("POST", "/cluster/ha/groups", { group: "prefer-pve1", nodes: "pve1:2,pve2" });
    await api.call("PUT", "/cluster/ha/groups/prefer-pve1", { restricted: 1, comment: "db" });
    expect(data(await api.get("/cluster/ha/groups/prefer-pve1"))).toEqual({
      group: "prefer-pve1",
      type: "group",
      nodes: "pve1:2,pve2",
      restricted: 1,
      nofailback: 0,
      comment: "db",
      digest: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    expect((data(await api.get("/cluster/ha/groups")) as Row[]).map((g) => g["group"])).toEqual([
      "prefer-pve1",
    ]);
    const again = await api.call("POST", "/cluster/ha/groups", {
      group: "prefer-pve1",
      nodes: "pve1",
    });
    expect(again.statusText).toBe(
      "create ha group failed: ha group ID 'prefer-pve1' already defined",
    );
  });

  it("refuses to delete a group a resource uses, then deletes it", async () => {
    ({ sim, api } = await startWithClonedVm());
    await api.call("POST", "/cluster/ha/groups", { group: "g1", nodes: "pve1" });
    await api.call("POST", "/cluster/ha/resources", {
      sid: "vm:100",
      state: "stopped",
      group: "g1",
    });
    const used = await api.call("DELETE", "/cluster/ha/groups/g1");
    expect([used.status, used.statusText]).toEqual([
      500,
      "delete ha group failed: ha group is used by service 'vm:100'",
    ]);
    await api.call("DELETE", "/cluster/ha/resources/vm:100");
    expect((await api.call("DELETE", "/cluster/ha/groups/g1")).status).toBe(200);
    const gone = await api.get("/cluster/ha/groups/g1");
    expect(gone.statusText).toBe("no such ha group 'g1'");
  });

  it("has no rules API on an 8.4 cluster and no groups API with PVE 9's rules", async () => {
    ({ sim, api } = await startWithClonedVm());
    const rules = await api.get("/cluster/ha/rules");
    expect([rules.status, rules.statusText]).toEqual([
      501,
      "Method 'GET /cluster/ha/rules' not implemented",
    ]);
    await api.close();
    await sim.close();
    ({ sim, api } = await startWithClonedVm({ haPlacement: "rules" }));
    const groups = await api.get("/cluster/ha/groups/g1");
    expect([groups.status, groups.statusText]).toEqual([
      501,
      "Method 'GET /cluster/ha/groups/g1' not implemented",
    ]);
  });

  it("creates node-affinity rules for managed resources on existing nodes only (PVE 9)", async () => {
    ({ sim, api } = await startWithClonedVm({ haPlacement: "rules" }));
    const unmanaged = await api.call("POST", "/cluster/ha/rules", {
      rule: "pin",
      type: "node-affinity",
      resources: "vm:100",
      nodes: "pve1",
    });
    expect(unmanaged.statusText).toBe(
      "create ha rule failed: cannot use unmanaged resource(s) vm:100.",
    );
    await api.call("POST", "/cluster/ha/resources", { sid: "vm:100", state: "stopped" });
    const ghost = await api.call("POST", "/cluster/ha/rules", {
      rule: "pin",
      type: "node-affinity",
      resources: "vm:100",
      nodes: "pve9",
    });
    expect(ghost.statusText).toBe("create ha rule failed: cannot use non-existant node(s) pve9.");
    await api.call("POST", "/cluster/ha/rules", {
      rule: "pin",
      type: "node-affinity",
      resources: "vm:100",
      nodes: "pve1:2,pve2",
    });
    expect(data(await api.get("/cluster/ha/rules?resource=vm:100"))).toEqual([
      {
        rule: "pin",
        type: "node-affinity",
        resources: "vm:100",
        nodes: "pve1:2,pve2",
        strict: 0,
        disable: 0,
        order: 1,
        digest: expect.any(String),
      },
    ]);
    expect(data(await api.get("/cluster/ha/rules?type=resource-affinity"))).toEqual([]);
    await api.call("DELETE", "/cluster/ha/rules/pin");
    expect((await api.get("/cluster/ha/rules/pin")).statusText).toBe("no such ha rule 'pin'");
  });

  it("needs Sys.Audit to read and Sys.Console to change", async () => {
    ({ sim, api } = await startWithClonedVm());
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/", privileges: ["Sys.Audit"] }]),
    );
    expect((await ro.get("/cluster/ha/groups")).status).toBe(200);
    const denied = await ro.call("POST", "/cluster/ha/groups", { group: "g1", nodes: "pve1" });
    expect(denied.statusText).toBe("Permission check failed (/, Sys.Console)");
    expect(data(await api.get("/cluster/ha/groups"))).toEqual([]);
    await ro.close();
  });
});
