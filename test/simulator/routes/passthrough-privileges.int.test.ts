import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

/** A token with the VM's hardware privileges and, when given, Mapping.Use on `mapping`. */
function tokenWith(mapping?: string): TestClient {
  const acls = [{ path: "/vms/100", privileges: ["VM.Config.HWType", "VM.Config.Options"] }];
  if (mapping !== undefined) acls.push({ path: mapping, privileges: ["Mapping.Use"] });
  return api.withToken(sim.addToken(`ops@pve!t${acls.length}`, acls));
}

describe("routes/passthrough-privileges", () => {
  it("refuses raw host ids to any token, even root@pam's, as only root@pam may set them", async () => {
    ({ sim, api } = await startWithClonedVm());
    const pci = await api.putConfig("pve1", 100, { hostpci0: "0000:01:00.0,pcie=1" });
    expect([pci.status, pci.statusText]).toEqual([
      500,
      "only root can set 'hostpci0' config for non-mapped devices",
    ]);
    const usb = await api.putConfig("pve1", 100, { usb0: "host=1050:0407" });
    expect(usb.statusText).toBe("only root can set 'usb0' config for real devices");
  });

  it("lets root@pam's password login set raw host ids", async () => {
    ({ sim, api } = await startWithClonedVm());
    const anon = api.withToken("");
    const login = data(
      await anon.call("POST", "/access/ticket", {
        username: "root@pam",
        password: sim.rootPassword,
      }),
    ) as { ticket: string; CSRFPreventionToken: string };
    const res = await anon.call(
      "PUT",
      "/nodes/pve1/qemu/100/config",
      { hostpci0: "0000:01:00.0,pcie=1", usb0: "host=1050:0407" },
      {
        cookie: `PVEAuthCookie=${encodeURIComponent(login.ticket)}`,
        CSRFPreventionToken: login.CSRFPreventionToken,
      },
    );
    expect(res.status).toBe(200);
    expect(await api.vmConfig("pve1", 100)).toMatchObject({ hostpci0: "0000:01:00.0,pcie=1" });
    await anon.close();
  });

  it("lets a token set a mapped device only with Mapping.Use on the mapping", async () => {
    ({ sim, api } = await startWithClonedVm());
    const without = tokenWith();
    const refused = await without.putConfig("pve1", 100, { hostpci0: "mapping=gpu0" });
    expect([refused.status, refused.statusText]).toEqual([
      403,
      "Permission check failed (/mapping/pci/gpu0, Mapping.Use)",
    ]);
    const allowed = tokenWith("/mapping/pci/gpu0");
    expect((await allowed.putConfig("pve1", 100, { hostpci0: "mapping=gpu0,pcie=1" })).status).toBe(
      200,
    );
    const dir = tokenWith("/mapping/dir/share");
    expect((await dir.putConfig("pve1", 100, { virtiofs0: "share,cache=always" })).status).toBe(
      200,
    );
    await Promise.all([without.close(), allowed.close(), dir.close()]);
  });

  it("refuses a mapping and virtiofs on 7.4, whose formats have neither", async () => {
    ({ sim, api } = await startWithClonedVm({ pveVersion: "7.4" }));
    const res = await api.putConfig("pve1", 100, { usb0: "mapping=key", virtiofs0: "share" });
    expect(res.status).toBe(400);
    expect(res.body?.["errors"]).toEqual({
      usb0: expect.stringMatching(/^invalid format - .*mapping/s),
      virtiofs0: expect.stringMatching(/^property is not defined in schema/),
    });
  });

  it("refuses a cache mode virtiofs does not have, naming the sub-key", async () => {
    ({ sim, api } = await startWithClonedVm());
    const res = await api.putConfig("pve1", 100, { virtiofs0: "share,cache=sometimes" });
    expect(String((res.body?.["errors"] as Record<string, string>)["virtiofs0"])).toMatch(
      /^invalid format - format error\nvirtiofs0\.cache: /,
    );
  });
});
