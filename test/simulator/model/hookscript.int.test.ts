import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;
let anon: TestClient;
/** A root@pam password login's ticket cookie and CSRF header: the only login PVE lets set it. */
let rootHeaders: Record<string, string>;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm());
  anon = api.withToken("");
  const login = await anon.call("POST", "/access/ticket", {
    username: "root@pam",
    password: sim.rootPassword,
  });
  const session = data(login) as { ticket: string; CSRFPreventionToken: string };
  rootHeaders = {
    cookie: `PVEAuthCookie=${encodeURIComponent(session.ticket)}`,
    csrfpreventiontoken: session.CSRFPreventionToken,
  };
});
afterEach(async () => {
  await anon.close();
  await api.close();
  await sim.close();
});

/** The admin route that puts a script in a storage's snippets/ directory. */
async function putSnippet(file: string, executable?: boolean): Promise<unknown> {
  const dispatcher = new Agent({ connect: { ca: sim.caCertPem } });
  const res = await request(`${sim.url}/_sim/nodes/pve1/storage/local/snippets/${file}`, {
    method: "PUT",
    dispatcher,
    body: JSON.stringify(executable === undefined ? {} : { executable }),
  });
  const body = await res.body.json();
  await dispatcher.close();
  return body;
}

const setHook = (volid: string) =>
  anon.call("PUT", "/nodes/pve1/qemu/100/config", { hookscript: volid }, rootHeaders);

describe("model/hookscript", () => {
  it("takes an executable snippet the admin put, for root@pam", async () => {
    expect(await putSnippet("hook.pl")).toEqual({ volid: "local:snippets/hook.pl" });
    expect((await setHook("local:snippets/hook.pl")).status).toBe(200);
    expect((await api.vmConfig("pve1", 100))["hookscript"]).toBe("local:snippets/hook.pl");
  });

  it("refuses what check_hookscript refuses, with its texts", async () => {
    await putSnippet("plain.sh", false);
    const answers = await Promise.all(
      ["local:iso/hook.pl", "local:snippets/missing.pl", "local:snippets/plain.sh"].map(setHook),
    );
    expect(answers.map((res) => [res.status, res.statusText])).toEqual([
      [500, "'local:iso/hook.pl' is not in the snippets directory"],
      [500, "script 'local:snippets/missing.pl' does not exist"],
      [500, "script 'local:snippets/plain.sh' is not executable"],
    ]);
  });
});
