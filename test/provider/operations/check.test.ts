import { describe, expect, it } from "vitest";
import { checkVm } from "../../../provider/operations/check";
import { UNKNOWN } from "../../../provider/inputs";

const valid = {
  __provider: "require(...)",
  identity: { project: "infra", stack: "dev", name: "web" },
  node: "pve1",
  template: 9000,
};

describe("checkVm", () => {
  it("accepts minimal inputs and fills the defaults", () => {
    const result = checkVm({}, valid);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({
      __provider: "require(...)",
      isoStorage: "local",
      started: true,
      waitForIp: true,
      network: { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" },
      vmidRange: { min: 10_000, max: 99_999 },
    });
  });

  it("names the property and says what is allowed", () => {
    const result = checkVm({}, { ...valid, node: "pve 1", cores: 0, network: { vlan: 5000 } });
    expect(result.failures).toEqual([
      {
        property: "node",
        reason: "must be a Proxmox node name: letters, digits and inner hyphens, e.g. pve1",
      },
      { property: "cores", reason: "at least 1 core" },
      { property: "network.vlan", reason: "VLAN tags are 1 to 4094" },
    ]);
  });

  it("reports a missing required input", () => {
    const { node: _node, ...rest } = valid;
    expect(checkVm({}, rest).failures).toEqual([{ property: "node", reason: "is required" }]);
  });

  it("rejects a misspelt property instead of ignoring it", () => {
    expect(checkVm({}, { ...valid, core: 2 }).failures).toEqual([
      {
        property: "",
        reason: "unknown property core: check the spelling against the ProxmoxVm docs",
      },
    ]);
  });

  it("refuses a disk shrink before any API call", () => {
    expect(checkVm({ diskSize: 40 }, { ...valid, diskSize: 20 }).failures).toEqual([
      {
        property: "diskSize",
        reason:
          "Proxmox cannot shrink disks: it was 40 GiB, so diskSize must be 40 or more (or replace the VM).",
      },
    ]);
  });

  it("tolerates values that are unknown during preview", () => {
    const result = checkVm({}, { ...valid, node: UNKNOWN, network: { mac: UNKNOWN } });
    expect(result.failures).toEqual([]);
    expect(result.inputs["node"]).toBe(UNKNOWN);
  });
});
