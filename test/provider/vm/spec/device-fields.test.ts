import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { configChanges, observedInputs, waitingKeys } from "../../../../provider/vm/spec/apply";

const base = {
  identity: { project: "infra", stack: "dev", name: "web" },
  node: "pve1",
  template: 9000,
};
const seen = { macs: {} };
const running = { running: true };

/** The inputs as check returns them, with the given device inputs. */
function checked(devices: Record<string, unknown>): Record<string, unknown> {
  const result = checkVm({}, { ...base, ...devices });
  expect(result.failures).toEqual([]);
  return result.inputs;
}

describe("watchdog", () => {
  it("is refused by check with PVE's models and actions, naming the sub-input", () => {
    const failures = checkVm(
      {},
      { ...base, watchdog: { model: "i6300", action: "reboot" } },
    ).failures;
    expect(failures.map((f) => f.property).sort()).toEqual(["watchdog.action", "watchdog.model"]);
  });

  it("defaults the model as PVE does, and writes model and action as PVE's property string", () => {
    const inputs = checked({ watchdog: { action: "reset" } });
    expect(inputs["watchdog"]).toEqual({ model: "i6300esb", action: "reset" });
    expect(configChanges({}, inputs, seen)).toMatchObject({
      watchdog: "model=i6300esb,action=reset",
    });
  });

  it("reads PVE's bare model spelling as what the program asked for", () => {
    const inputs = checked({ watchdog: { model: "ib700", action: "pause" } });
    expect(configChanges({ watchdog: "ib700,action=pause" }, inputs, seen)).not.toHaveProperty(
      "watchdog",
    );
    const config = { watchdog: "ib700,action=pause" };
    expect(observedInputs({ config, ...running }, undefined, inputs)["watchdog"]).toEqual({
      model: "ib700",
      action: "pause",
    });
  });

  it("reports no action as drift when the program sets none", () => {
    const inputs = checked({ watchdog: { model: "ib700" } });
    const config = { watchdog: "model=ib700,action=reset" };
    expect(observedInputs({ config, ...running }, undefined, inputs)["watchdog"]).toEqual({
      model: "ib700",
    });
  });

  it("is changed in place, and a running VM takes it at its next reboot", () => {
    const olds = { ...checked({ watchdog: { model: "i6300esb" } }), vmid: 100 };
    const news = checked({ watchdog: { model: "ib700", action: "reset" } });
    expect(diffVm(olds, news)).toMatchObject({ changed: ["watchdog"], replaces: [] });
    expect(
      waitingKeys(["watchdog"], news, seen, { hotplug: "network,disk,cpu,memory,usb" }),
    ).toEqual(["watchdog"]);
  });
});

describe("rng", () => {
  it("is refused by check with a source PVE does not offer or a negative limit, naming it", () => {
    const failures = checkVm({}, { ...base, rng: { source: "/dev/zero", maxBytes: -1 } }).failures;
    expect(failures.map((f) => f.property).sort()).toEqual(["rng.maxBytes", "rng.source"]);
  });

  it("writes PVE's rng0 with only the limits the program sets", () => {
    expect(configChanges({}, checked({ rng: { source: "/dev/urandom" } }), seen)).toMatchObject({
      rng0: "source=/dev/urandom",
    });
    const limited = checked({ rng: { source: "/dev/hwrng", maxBytes: 0, periodMs: 500 } });
    expect(configChanges({}, limited, seen)).toMatchObject({
      rng0: "source=/dev/hwrng,max_bytes=0,period=500",
    });
  });

  it("reads PVE's bare source spelling back in the input's terms", () => {
    const inputs = checked({ rng: { source: "/dev/random", maxBytes: 2048 } });
    const config = { rng0: "/dev/random,max_bytes=2048,period=1000" };
    expect(configChanges(config, inputs, seen)).not.toHaveProperty("rng0");
    expect(observedInputs({ config, ...running }, undefined, inputs)["rng"]).toEqual({
      source: "/dev/random",
      maxBytes: 2048,
    });
  });

  it("is changed in place, and a running VM takes it at its next reboot", () => {
    const olds = { ...checked({ rng: { source: "/dev/urandom" } }), vmid: 100 };
    const news = checked({ rng: { source: "/dev/random" } });
    expect(diffVm(olds, news)).toMatchObject({ changed: ["rng"], replaces: [] });
    expect(waitingKeys(["rng0"], news, seen, { hotplug: "1" })).toEqual(["rng0"]);
  });
});

describe("audio", () => {
  it("is refused by check with a device PVE does not emulate, naming it", () => {
    const failures = checkVm({}, { ...base, audio: { device: "sb16" } }).failures;
    expect(failures.map((f) => f.property)).toEqual(["audio.device"]);
  });

  it("writes audio0 with PVE's default driver, and reads it back with the default filled in", () => {
    const inputs = checked({ audio: { device: "ich9-intel-hda" } });
    expect(configChanges({}, inputs, seen)).toMatchObject({
      audio0: "device=ich9-intel-hda,driver=spice",
    });
    const config = { audio0: "device=ich9-intel-hda" };
    expect(configChanges(config, inputs, seen)).not.toHaveProperty("audio0");
    expect(observedInputs({ config, ...running }, undefined, inputs)["audio"]).toEqual({
      device: "ich9-intel-hda",
      driver: "spice",
    });
  });

  it("is changed in place, and a running VM takes it at its next reboot", () => {
    const news = checked({ audio: { device: "AC97", driver: "none" } });
    expect(waitingKeys(["audio0"], news, seen, { hotplug: "1" })).toEqual(["audio0"]);
  });
});
