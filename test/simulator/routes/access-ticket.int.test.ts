import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;
let anon: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClient());
  anon = api.withToken("");
});
afterEach(async () => {
  await anon.close();
  await api.close();
  await sim.close();
});

async function login(
  username: string,
  password: string,
): Promise<{ ticket: string; CSRFPreventionToken: string; username: string }> {
  const res = await anon.call("POST", "/access/ticket", { username, password });
  expect(res.status).toBe(200);
  return data(res) as { ticket: string; CSRFPreventionToken: string; username: string };
}

const cookie = (ticket: string): Record<string, string> => ({
  cookie: `PVEAuthCookie=${encodeURIComponent(ticket)}`,
});

describe("routes/access-ticket", () => {
  it("logs root@pam in with its password and reads with the ticket cookie", async () => {
    const session = await login("root@pam", sim.rootPassword);
    expect(session.username).toBe("root@pam");
    const nodes = await anon.call("GET", "/nodes", undefined, cookie(session.ticket));
    expect((data(nodes) as unknown[]).length).toBe(2);
  });

  it("joins username and realm, and refuses a wrong password with 401 and no ticket", async () => {
    sim.addUser("alice@pve", "s3cret", [{ path: "/vms", privileges: ["VM.Audit"] }]);
    const res = await anon.call("POST", "/access/ticket", {
      username: "alice",
      realm: "pve",
      password: "s3cret",
    });
    expect((data(res) as Record<string, unknown>)["username"]).toBe("alice@pve");
    const wrong = await anon.call("POST", "/access/ticket", {
      username: "alice@pve",
      password: "nope",
    });
    expect([wrong.status, wrong.statusText, wrong.body]).toEqual([
      401,
      "authentication failure",
      { data: null, message: "authentication failure\n" },
    ]);
  });

  it("needs the CSRF token on writes but not on reads, and answers 401 without it", async () => {
    const session = await login("root@pam", sim.rootPassword);
    const headers = cookie(session.ticket);
    const write = () =>
      anon.call("PUT", "/nodes/pve1/qemu/9000/config", { description: "x" }, headers);
    const refused = await write();
    expect([refused.status, refused.statusText, refused.text]).toEqual([
      401,
      "Permission denied - invalid csrf token",
      "",
    ]);
    expect(sim.model.vms.get(9000)?.config["description"]).toBeUndefined();
    const ok = await anon.call(
      "PUT",
      "/nodes/pve1/qemu/9000/config",
      { description: "x" },
      { ...headers, CSRFPreventionToken: session.CSRFPreventionToken },
    );
    expect(ok.status).toBe(200);
    expect(sim.model.vms.get(9000)?.config["description"]).toBe("x");
  });

  it("checks the logged-in user's own ACLs and records them as the task owner", async () => {
    sim.addUser("ops@pve", "pw", [{ path: "/vms/9000", privileges: ["VM.Audit"] }]);
    const session = await login("ops@pve", "pw");
    const headers = { ...cookie(session.ticket), CSRFPreventionToken: session.CSRFPreventionToken };
    const denied = await anon.call("GET", "/nodes/pve1/status", undefined, headers);
    expect(denied.statusText).toBe("Permission check failed (/nodes/pve1, Sys.Audit)");
    const perms = data(await anon.call("GET", "/access/permissions", undefined, headers));
    expect(perms).toEqual({ "/vms/9000": { "VM.Audit": 1 } });
  });

  it("renews a ticket given as password, and refuses an expired one", async () => {
    // A ticket carries its time in whole seconds and PVE compares whole-second ages, so a
    // lifetime of L s accepts it for L - 1 to L s: 5 s leaves the renewal 4 s, far above any
    // scheduling delay, and the wait of 5 s is past the lifetime whenever the ticket was made.
    await sim.close();
    ({ sim, api } = await startWithClient({ ticketLifetimeMs: 5000 }));
    await anon.close();
    anon = api.withToken("");
    const session = await login("root@pam", sim.rootPassword);
    const renewed = await login("root@pam", session.ticket);
    expect(renewed.username).toBe("root@pam");
    await new Promise((r) => setTimeout(r, 5000));
    const expired = await anon.call("GET", "/nodes", undefined, cookie(session.ticket));
    expect([expired.status, expired.statusText]).toEqual([
      401,
      "permission denied - invalid PVE ticket",
    ]);
    const relogin = await anon.call("POST", "/access/ticket", {
      username: "root@pam",
      password: session.ticket,
    });
    expect(relogin.status).toBe(401);
  });

  it("answers a user with a second factor with NeedTFA and a ticket no API call accepts", async () => {
    sim.addUser("tfa@pve", "s3cret", [{ path: "/", privileges: ["Sys.Audit"] }], { tfa: true });
    const res = await anon.call("POST", "/access/ticket", {
      username: "tfa@pve",
      password: "s3cret",
    });
    const answer = data(res) as { ticket: string; NeedTFA?: number; clustername?: string };
    expect(answer.NeedTFA).toBe(1);
    expect(answer.clustername).toBeUndefined();
    expect(answer.ticket).toMatch(/^PVE:!tfa!\S+::\S+$/);
    const read = await anon.call("GET", "/nodes", undefined, cookie(answer.ticket));
    expect([read.status, read.statusText]).toEqual([401, "permission denied - invalid PVE ticket"]);
  });

  it("keeps API tokens working beside tickets, without CSRF", async () => {
    const res = await api.call("PUT", "/nodes/pve1/qemu/9000/config", { description: "t" });
    expect(res.status).toBe(200);
  });
});
