import { describe, expect, it } from "vitest";
import {
  TICKET_RENEW_AFTER_MS,
  TicketSession,
  tokenAuth,
  type TicketAnswer,
} from "../../../../provider/pve/api/login.js";
import type { PasswordLogin } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { Secret } from "../../../../provider/pve/secret.js";
import { expectNoSecret } from "./no-secret.js";

const PASSWORD = "correct-horse-battery-staple";
const login: PasswordLogin = {
  kind: "password",
  username: "ops@pve",
  password: new Secret(PASSWORD),
};

/** A session over a scripted `POST /access/ticket`: each login gets ticket `T<n>`. */
function session(answer?: (n: number) => TicketAnswer | Promise<TicketAnswer>) {
  let now = 1_000_000;
  const forms: { username: string; password: string }[] = [];
  const auth = new TicketSession(login, {
    requestTicket: (form) => {
      forms.push(form);
      const n = forms.length;
      return Promise.resolve(
        answer?.(n) ?? {
          username: form.username,
          ticket: `PVE:ops@pve:T${n}`,
          CSRFPreventionToken: `C${n}`,
        },
      );
    },
    now: () => now,
  });
  return {
    auth,
    forms,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ProxmoxError> {
  try {
    await promise;
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

describe("login", () => {
  it("sends an API token as one header and never renews it", async () => {
    const auth = tokenAuth({
      kind: "token",
      tokenId: "ci@pve!t",
      secret: new Secret("tok-s3cret"),
    });
    expect(await auth.headers("POST")).toEqual({
      authorization: "PVEAPIToken=ci@pve!t=tok-s3cret",
    });
    expect(await auth.renew({})).toBe(false);
    expect(auth.scrub("x tok-s3cret y")).toBe("x [redacted] y");
  });

  it("logs in once for requests that start together, with the password as PVE's form", async () => {
    const { auth, forms } = session();
    const all = await Promise.all([auth.headers("GET"), auth.headers("GET"), auth.headers("PUT")]);
    expect(forms).toEqual([{ username: "ops@pve", password: PASSWORD }]);
    expect(all[0]).toEqual({ cookie: `PVEAuthCookie=${encodeURIComponent("PVE:ops@pve:T1")}` });
    expect(all[2]).toEqual({ ...all[0], csrfpreventiontoken: "C1" });
  });

  it("keeps the ticket for an hour, then logs in again before PVE's two hours run out", async () => {
    const { auth, forms, advance } = session();
    await auth.headers("GET");
    advance(TICKET_RENEW_AFTER_MS - 1);
    expect((await auth.headers("GET"))["cookie"]).toContain("T1");
    advance(1);
    expect((await auth.headers("GET"))["cookie"]).toContain("T2");
    expect(forms).toHaveLength(2);
    expect(TICKET_RENEW_AFTER_MS).toBeLessThan(2 * 3600 * 1000);
  });

  it("logs in again once after a 401, however many requests got it", async () => {
    const { auth, forms } = session();
    const sent = await auth.headers("GET");
    expect(await Promise.all([auth.renew(sent), auth.renew(sent), auth.renew(sent)])).toEqual([
      true,
      true,
      true,
    ]);
    expect(forms).toHaveLength(2);
    expect((await auth.headers("GET"))["cookie"]).toContain("T2");
  });

  it("retries a 401 to an older ticket with the newer one, without a login", async () => {
    const { auth, forms } = session();
    const old = await auth.headers("GET");
    await auth.renew(old);
    expect(await auth.renew(old)).toBe(true);
    expect(forms).toHaveLength(2);
  });

  it("refuses an account with a second factor and says to use an API token", async () => {
    const { auth } = session(() => ({
      username: "ops@pve",
      ticket: "PVE:!tfa!challenge:6789ABCD::sig",
      CSRFPreventionToken: "C",
      NeedTFA: 1,
    }));
    const error = await failure(auth.headers("GET"));
    expect(error.code).toBe("AUTH");
    expect(error.message).toContain("user ops@pve has two-factor authentication");
    expect(error.message).toContain("Use an API token instead");
    expect(error.message).toContain("`proxmox:apiToken` (or PROXMOX_VE_API_TOKEN)");
    expectNoSecret(error, PASSWORD);
  });

  it("forgets a failed login, so the next request logs in again", async () => {
    let calls = 0;
    const { auth } = session((n) => {
      calls = n;
      if (n === 1) return Promise.reject(new Error("socket hang up"));
      return { username: "ops@pve", ticket: `PVE:ops@pve:T${n}`, CSRFPreventionToken: "C" };
    });
    await expect(auth.headers("GET")).rejects.toThrow("socket hang up");
    expect((await auth.headers("GET"))["cookie"]).toContain("T2");
    expect(calls).toBe(2);
  });

  it("scrubs the password and every ticket it was given from a text", async () => {
    const { auth } = session();
    const first = await auth.headers("GET");
    await auth.renew(first);
    const text = `pw ${PASSWORD} t1 PVE:ops@pve:T1 t2 PVE:ops@pve:T2`;
    expect(auth.scrub(text)).toBe("pw [redacted] t1 [redacted] t2 [redacted]");
  });
});
