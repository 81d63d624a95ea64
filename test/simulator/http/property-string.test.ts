import { describe, expect, it } from "vitest";
import {
  checkPropertyString,
  parseProperty,
  type PropertyFormat,
} from "../../../simulator/http/property-string.js";

const NIC: PropertyFormat = {
  model: { type: "string", defaultKey: true, enum: ["virtio", "e1000"] },
  virtio: { alias: "macaddr", keyAlias: "model" },
  macaddr: { type: "string", optional: true },
  firewall: { type: "boolean", optional: true },
  tag: { type: "integer", optional: true, min: 1 },
};

describe("http/property-string", () => {
  it("stores an aliased key as its value and the key itself under keyAlias", () => {
    expect(parseProperty(NIC, "virtio=BC:24:11:00:00:01,firewall=on")).toEqual({
      model: "virtio",
      macaddr: "BC:24:11:00:00:01",
      firewall: "1",
    });
  });

  it("gives a bare value to the default key and skips blank parts", () => {
    expect(parseProperty(NIC, "e1000,,tag=3")).toEqual({
      model: "e1000",
      tag: "3",
    });
  });

  it("stops at a duplicate key, an unknown key and a part without a key", () => {
    expect(parseProperty(NIC, "virtio,e1000")).toBe(
      "duplicate key in comma-separated list property: model",
    );
    expect(parseProperty(NIC, "virtio,tag=1,tag=2")).toBe(
      "duplicate key in comma-separated list property: tag",
    );
    expect(parseProperty(NIC, "virtio,speed=10")).toBe(
      "invalid key in comma-separated list property: speed",
    );
    expect(parseProperty(NIC, "virtio,=1")).toBe("missing key in comma-separated list property");
    expect(parseProperty({ tag: NIC["tag"] ?? { type: "string" } }, "5")).toBe(
      "value without key, but schema does not define a default key",
    );
  });

  it("says why a value is bad: a missing required key, then the validator on a well-formed value", () => {
    expect(checkPropertyString(NIC, "net0", "tag=2")).toBe(
      "format error\nnet0.model: property is missing and it is not optional",
    );
    const noFirewall = (parsed: Readonly<Record<string, string>>) =>
      parsed["firewall"] === "1" ? "firewall not allowed here" : undefined;
    expect(checkPropertyString(NIC, "net0", "virtio,firewall=1", noFirewall)).toBe(
      "firewall not allowed here",
    );
    expect(checkPropertyString(NIC, "net0", "virtio,firewall=1,tag=0", noFirewall)).toBe(
      "format error\nnet0.tag: value must have a minimum value of 1",
    );
    expect(checkPropertyString(NIC, "net0", "virtio,tag=7", noFirewall)).toBeUndefined();
  });
});
