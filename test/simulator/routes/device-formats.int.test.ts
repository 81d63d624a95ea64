import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { startWithClonedVm, type TestClient } from "../support/client.js";

let sim: Simulator;
let api: TestClient;

beforeEach(async () => {
  ({ sim, api } = await startWithClonedVm());
});
afterEach(async () => {
  await api.close();
  await sim.close();
});

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);

describe("routes/device-formats", () => {
  it("accepts a watchdog in either spelling of its model, and stores it as written", async () => {
    expect((await put({ watchdog: "i6300esb,action=reset" })).status).toBe(200);
    expect(await api.vmConfig("pve1", 100)).toMatchObject({ watchdog: "i6300esb,action=reset" });
    expect((await put({ watchdog: "model=ib700" })).status).toBe(200);
  });

  it("refuses a watchdog model or action PVE's format does not list", async () => {
    const res = await put({ watchdog: "model=i6300,action=reboot" });
    expect([res.status, res.statusText]).toEqual([400, "Parameter verification failed."]);
    expect(String((res.body?.["errors"] as Record<string, string>)["watchdog"])).toMatch(
      /^invalid format - format error\nwatchdog\.action: .*\nwatchdog\.model: /,
    );
  });
});

describe("routes/device-formats: rng0", () => {
  it("accepts each source PVE offers, with or without its limits", async () => {
    expect((await put({ rng0: "source=/dev/urandom,max_bytes=1024,period=1000" })).status).toBe(
      200,
    );
    expect((await put({ rng0: "/dev/hwrng" })).status).toBe(200);
    expect(await api.vmConfig("pve1", 100)).toMatchObject({ rng0: "/dev/hwrng" });
  });

  it("refuses a source PVE's format does not list, and a limit that is not an integer", async () => {
    const res = await put({ rng0: "source=/dev/zero,max_bytes=lots" });
    expect([res.status, res.statusText]).toEqual([400, "Parameter verification failed."]);
    expect(String((res.body?.["errors"] as Record<string, string>)["rng0"])).toMatch(
      /^invalid format - format error\nrng0\.max_bytes: .*\nrng0\.source: /,
    );
  });
});

describe("routes/device-formats: audio0 and numaN", () => {
  it("accepts a sound card and NUMA nodes in qemu-server's formats, stored as written", async () => {
    const params = {
      audio0: "device=ich9-intel-hda,driver=none",
      numa0: "cpus=0-1;4,hostnodes=0,memory=1024,policy=bind",
    };
    expect((await put(params)).status).toBe(200);
    expect(await api.vmConfig("pve1", 100)).toMatchObject(params);
  });

  it("refuses a device, driver or policy the formats do not list", async () => {
    const res = await put({ audio0: "device=sb16,driver=alsa", numa1: "cpus=0,policy=strict" });
    expect([res.status, res.statusText]).toEqual([400, "Parameter verification failed."]);
    const errors = res.body?.["errors"] as Record<string, string>;
    expect(errors["audio0"]).toMatch(
      /^invalid format - format error\naudio0\.device: .*\naudio0\.driver: /,
    );
    expect(errors["numa1"]).toMatch(/^invalid format - format error\nnuma1\.policy: /);
  });
});
