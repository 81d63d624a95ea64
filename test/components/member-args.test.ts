import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { VmFleetArgsError } from "../../components/fleet-args";
import { memberArgs, type VmFleetMemberArgs } from "../../components/member-args";

const address = { address: "10.0.0.2/24", gateway: "10.0.0.1" };

const settings: VmFleetMemberArgs = {
  cpu: { cores: 2, type: "host" },
  memory: 2048,
  disks: [{ interface: "scsi1", storage: "local-lvm", sizeGiB: 20 }],
  networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 20 }],
  tags: ["web"],
};

function thrown(run: () => unknown): VmFleetArgsError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VmFleetArgsError);
    return error as VmFleetArgsError;
  }
  throw new Error("nothing was thrown");
}

describe("member-args", () => {
  it("gives a member without override the fleet's settings", () => {
    expect(memberArgs("web", settings, undefined, undefined)).toEqual(settings);
  });

  it("replaces each top-level field an override sets, whole, and keeps the others", () => {
    const merged = memberArgs(
      "web",
      settings,
      { key: "1", args: { cpu: { cores: 8 }, tags: [] } },
      undefined,
    );
    expect(merged).toEqual({ ...settings, cpu: { cores: 8 }, tags: [] });
  });

  it("puts the member's address on the first NIC and leaves the others alone", () => {
    expect(memberArgs("web", settings, undefined, address).networks).toEqual([
      { bridge: "vmbr0", ipv4: address },
      { bridge: "vmbr1", vlan: 20 },
    ]);
  });

  it("addresses the first NIC of an override's own NIC list", () => {
    const override = {
      key: "web-1",
      args: { networks: [{ bridge: "vmbr9", ipv4: "dhcp" as const }] },
    };
    expect(memberArgs("web", settings, override, address).networks).toEqual([
      { bridge: "vmbr9", ipv4: address },
    ]);
  });

  it("addresses the one-NIC shorthand, written or not", () => {
    expect(memberArgs("web", { memory: 1024 }, undefined, address)).toEqual({
      memory: 1024,
      network: { ipv4: address },
    });
    expect(
      memberArgs("web", { network: { bridge: "vmbr1", vlan: 7 } }, undefined, address),
    ).toEqual({
      network: { bridge: "vmbr1", vlan: 7, ipv4: address },
    });
  });

  it("refuses a static address written on the first NIC, naming where it was written", () => {
    const written = { networks: [{ ipv4: { address: "10.0.0.99/24" } }] };
    expect(thrown(() => memberArgs("web", written, undefined, address)).failures).toEqual([
      {
        property: "networks[0].ipv4",
        reason:
          "is static, and the fleet's ipv4 gives this member 10.0.0.2/24: leave the first NIC's ipv4 out (or \"dhcp\"), or remove the fleet's ipv4 and address each member in its override",
      },
    ]);
    const override = { key: "web-1", args: { network: { ipv4: { address: "10.0.0.99/24" } } } };
    expect(thrown(() => memberArgs("web", {}, override, address)).message).toMatch(
      /^VmFleet web: overrides\.web-1\.network\.ipv4: is static/,
    );
  });

  it("addresses a NIC list known only later once it is known", async () => {
    const later = { networks: pulumi.output([{ bridge: "vmbr0" }, { bridge: "vmbr1" }]) };
    const networks = memberArgs("web", later, undefined, address).networks;
    expect(pulumi.Output.isInstance(networks)).toBe(true);
    const resolved = await new Promise((done) => (networks as pulumi.Output<unknown>).apply(done));
    expect(resolved).toEqual([{ bridge: "vmbr0", ipv4: address }, { bridge: "vmbr1" }]);
  });
});
