import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { sim, api } = useSimulator();

type Row = Record<string, unknown>;

describe("routes/access-users", () => {
  it("lists users with their tokens for an auditor, and only the caller's own user otherwise", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    const all = data(await api.get("/access/users?full=1")) as Row[];
    expect(all.map((u) => [u["userid"], u["realm-type"]])).toEqual([
      ["ops@pve", "pve"],
      ["root@pam", "pam"],
    ]);
    expect(all[1]?.["tokens"]).toEqual([{ tokenid: "ci", expire: 0, privsep: 1 }]);
    expect((data(await ro.get("/access/users")) as Row[]).map((u) => u["userid"])).toEqual([
      "ops@pve",
    ]);
    await ro.close();
  });

  it("lists a user's tokens for the user itself, and names a user that does not exist", async () => {
    const ro = api.withToken(
      sim.addToken("ops@pve!ro", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    expect(data(await ro.get("/access/users/ops@pve/token"))).toEqual([
      { tokenid: "ro", expire: 0, privsep: 1 },
    ]);
    expect((await ro.get("/access/users/root@pam/token")).status).toBe(403);
    const missing = await api.get("/access/users/ghost@pve/token");
    expect([missing.status, missing.statusText]).toEqual([500, "no such user ('ghost@pve')"]);
    await ro.close();
  });

  it("lists ACL entries of users and tokens on the paths the caller may audit", async () => {
    sim.addToken("ops@pve!ro", [{ path: "/vms/100", privileges: ["VM.Audit"], propagate: false }]);
    const acl = data(await api.get("/access/acl")) as Row[];
    expect(acl).toContainEqual({
      path: "/",
      type: "token",
      ugid: "root@pam!ci",
      roleid: "Administrator",
      propagate: 1,
    });
    expect(acl).toContainEqual({
      path: "/vms/100",
      type: "token",
      ugid: "ops@pve!ro",
      roleid: "custom",
      propagate: 0,
    });
    const ro = api.withToken(
      sim.addToken("ops@pve!ro2", [{ path: "/vms", privileges: ["VM.Audit"] }]),
    );
    expect(data(await ro.get("/access/acl"))).toEqual([]);
    await ro.close();
  });
});
