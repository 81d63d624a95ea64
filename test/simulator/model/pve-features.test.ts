import { describe, expect, it } from "vitest";
import { DEFAULT_PVE_VERSION, templateFeatures } from "../../../simulator/model/pve-features.js";

describe("model/pve-features", () => {
  it("answers as PVE 8.4 by default: every import format and Sys.AccessNetwork", () => {
    expect(DEFAULT_PVE_VERSION).toBe("8.4");
    expect(templateFeatures()).toEqual({
      uploadContents: ["iso", "vztmpl", "import"],
      importExtensions: ["ova", "qcow2", "raw", "vmdk"],
      accessNetworkPrivilege: true,
    });
  });

  it("has no import content before 8.2 and OVA only before 8.4", () => {
    expect(templateFeatures("7.4").uploadContents).toEqual(["iso", "vztmpl"]);
    expect(templateFeatures("7.4").importExtensions).toEqual([]);
    expect(templateFeatures("8.1").uploadContents).toEqual(["iso", "vztmpl"]);
    expect(templateFeatures("8.2").importExtensions).toEqual(["ova"]);
    expect(templateFeatures("8.3.2").importExtensions).toEqual(["ova"]);
    expect(templateFeatures("9.1").importExtensions).toEqual(["ova", "qcow2", "raw", "vmdk"]);
  });

  it("knows Sys.AccessNetwork from 8.1 on", () => {
    expect(templateFeatures("8.0").accessNetworkPrivilege).toBe(false);
    expect(templateFeatures("8.1").accessNetworkPrivilege).toBe(true);
    expect(templateFeatures("10.0").accessNetworkPrivilege).toBe(true);
  });
});
