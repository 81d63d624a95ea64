import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../../../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import { parseConnectionConfig } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { startSimulator, type Simulator } from "../../../../simulator/index.js";
import { expectNoSecret } from "./no-secret.js";

/** A password login over real HTTPS against the simulator, whose tickets live 3 seconds. */

const LIFETIME_MS = 3_000;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ defaultTaskMs: 50, ticketLifetimeMs: LIFETIME_MS });
});

afterEach(() => {
  sim.clearRequestLog();
});

afterAll(async () => {
  await closeSharedDispatchers();
  await sim.close();
});

function client(username: string, password: string, ticketRenewAfterMs?: number) {
  const connection = parseConnectionConfig(
    { endpoint: sim.url, username, password, caCert: sim.caCertPem },
    { env: {} },
  );
  return new HttpProxmoxApi({ connection, timeoutMs: 5_000, ticketRenewAfterMs });
}

/** The requests the client sent, as `METHOD path status`. */
function sent(): string[] {
  return sim.requestLog.map((e) => `${e.method} ${e.path} ${e.status}`);
}

async function failure(promise: Promise<unknown>): Promise<ProxmoxError> {
  try {
    await promise;
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

describe("login against the simulator", () => {
  it("logs in once, reads with the ticket and writes with its CSRF token", async () => {
    const api = client("root@pam", sim.rootPassword);
    await Promise.all([api.version(), api.nodes()]);
    await api.updateVmConfigSync("pve1", 9000, { set: { description: "by password" } });
    expect(sim.model.vms.get(9000)?.config["description"]).toBe("by password");
    expect(sent().filter((line) => line.startsWith("POST /access/ticket"))).toEqual([
      "POST /access/ticket 200",
    ]);
    expect(sent().filter((line) => !line.endsWith(" 200"))).toEqual([]);
  });

  it("renews the ticket before PVE's lifetime runs out: no request is refused", async () => {
    const api = client("root@pam", sim.rootPassword, LIFETIME_MS / 2);
    const deadline = Date.now() + 2 * LIFETIME_MS;
    while (Date.now() < deadline) {
      await api.updateVmConfigSync("pve1", 9000, { set: { description: "renewed" } });
      await sleep(250);
    }
    expect(sent().filter((line) => !line.endsWith(" 200"))).toEqual([]);
    expect(sent().filter((line) => line.startsWith("POST /access/ticket")).length).toBeGreaterThan(
      2,
    );
  });

  it("logs in again once when the ticket expired mid-run, and resends the request", async () => {
    const api = client("root@pam", sim.rootPassword);
    await api.version();
    await sleep(LIFETIME_MS + 1_500);
    sim.clearRequestLog();
    await api.updateVmConfigSync("pve1", 9000, { set: { description: "after expiry" } });
    expect(sent()).toEqual([
      "PUT /nodes/pve1/qemu/9000/config 401",
      "POST /access/ticket 200",
      "PUT /nodes/pve1/qemu/9000/config 200",
    ]);
  });

  it("refuses a wrong password once, naming the user and the settings, never the password", async () => {
    const password = "wrong-password-marker";
    const error = await failure(client("root@pam", password).version());
    expect(error).toMatchObject({ code: "AUTH", transient: false, status: 401 });
    expect(error.message).toContain("PVE refused the login of root@pam");
    expect(error.message).toContain("`proxmox:username` and `proxmox:password`");
    expect(sent()).toEqual(["POST /access/ticket 401"]);
    expectNoSecret(error, password);
  });

  it("refuses an account with a second factor, saying to use an API token", async () => {
    sim.addUser("tfa@pve", "tfa-password-marker", [{ path: "/", privileges: ["Sys.Audit"] }], {
      tfa: true,
    });
    const error = await failure(client("tfa@pve", "tfa-password-marker").version());
    expect(error.code).toBe("AUTH");
    expect(error.message).toContain("user tfa@pve has two-factor authentication");
    expect(error.message).toContain("Use an API token instead");
    expect(sent()).toEqual(["POST /access/ticket 200"]);
    expectNoSecret(error, "tfa-password-marker");
  });

  it("keeps the password and the ticket out of a refused request's error", async () => {
    sim.addUser("audit@pve", "audit-password-marker", [
      { path: "/", privileges: ["Sys.Audit", "VM.Audit"] },
    ]);
    const api = client("audit@pve", "audit-password-marker");
    const error = await failure(
      api.updateVmConfigSync("pve1", 9000, { set: { description: "nope" } }),
    );
    expect(error.code).toBe("FORBIDDEN");
    expectNoSecret(error, "audit-password-marker");
    expectNoSecret(error, "PVE:audit@pve:");
    expect(JSON.stringify(api)).toBe(`{"origin":"${sim.url}","login":"user audit@pve"}`);
  });
});
