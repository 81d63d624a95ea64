import { describe, expect, it } from "vitest";
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
