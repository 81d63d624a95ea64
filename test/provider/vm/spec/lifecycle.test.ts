import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { configChanges, waitingKeys } from "../../../../provider/vm/spec/apply";
import {
  formatHotplug,
  formatStartup,
  parseHotplug,
  parseStartup,
  readFlag,
} from "../../../../provider/vm/spec/lifecycle";

describe("hotplug", () => {
  it("reads an absent key and PVE's alias 1 as the default network,disk,usb", () => {
    expect(parseHotplug(undefined)).toEqual(["disk", "network", "usb"]);
    expect(parseHotplug("1")).toEqual(["disk", "network", "usb"]);
  });

  it("writes no features as 0 and reads 0 back as none", () => {
    expect(formatHotplug([])).toBe("0");
    expect(parseHotplug("0")).toEqual([]);
  });

  it("reads the features as a set, in any order", () => {
    expect(parseHotplug(formatHotplug(["cpu", "network", "cpu"]))).toEqual(["cpu", "network"]);
  });
});

describe("startup", () => {
  it("round-trips order, up and down", () => {
    const startup = { order: 2, up: 30, down: 60 };
    expect(formatStartup(startup)).toBe("order=2,up=30,down=60");
    expect(parseStartup(formatStartup(startup))).toEqual(startup);
  });

  it("reads PVE's bare order form", () => {
    expect(parseStartup("3")).toEqual({ order: 3 });
  });
});

describe("readFlag", () => {
  it("reads 1 as on and an absent key as PVE's default, off", () => {
    expect(readFlag({ onboot: 1 }, "onboot")).toBe(true);
    expect(readFlag({}, "protection")).toBe(false);
  });
});

describe("hookscript", () => {
  const base = { identity: { project: "p", stack: "s", name: "n" }, node: "pve1", template: 9000 };

  it("is refused unless it names a snippet volume", () => {
    const failures = checkVm({}, { ...base, hookscript: "local:iso/hook.pl" }).failures;
    expect(failures).toEqual([
      { property: "hookscript", reason: 'must be a snippet volume, e.g. "local:snippets/hook.pl"' },
    ]);
  });

  it("is written as PVE's hookscript, which a running VM takes at once", () => {
    const { inputs } = checkVm({}, { ...base, hookscript: "local:snippets/hook.pl" });
    expect(configChanges({}, inputs, { macs: {} })).toMatchObject({
      hookscript: "local:snippets/hook.pl",
    });
    expect(waitingKeys(["hookscript"], inputs, { macs: {} }, {})).toEqual([]);
  });
});
