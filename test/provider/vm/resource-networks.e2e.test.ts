import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

const program = (networks: readonly object[]) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("router", {
  node: "pve1", template: 9000,
  networks: ${JSON.stringify(networks)},
  nameservers: ["10.10.0.53"],
});
exports.vmid = vm.vmid;
exports.ipv4 = vm.ipv4Addresses;
`;

const twoNics = [{ bridge: "vmbr0" }, { bridge: "vmbr1", vlan: 20, firewall: true, mtu: 9000 }];
const threeNics = [...twoNics, { bridge: "vmbr1", ipv4: { address: "192.168.5.10/24" } }];

describe("ProxmoxVm with several NICs through the real engine", () => {
  const { sim, engine, dir } = useStack(
    { name: "networks", program: program(twoNics) },
    { simulator: { bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" } } },
  );
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      vmid: number;
      ipv4: string[];
    };
  const up = async () => {
    const result = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(result);
  };
  const driftCheck = () =>
    pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"], dir, engine.env);

  it("creates both NICs and reports both addresses, then refreshes with no changes", async () => {
    await up();
    const { vmid, ipv4 } = await outputs();
    expect(ipv4).toHaveLength(2);
    expect(String(sim.model.vms.get(vmid)?.config["net1"])).toMatch(
      /,bridge=vmbr1,firewall=1,mtu=9000,tag=20$/,
    );
    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("adds a NIC in place, on the same VMID, and settles", async () => {
    const before = await outputs();
    fs.writeFileSync(path.join(dir, "index.js"), program(threeNics));
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(update\)/);
    await up();
    const after = await outputs();
    expect(after.vmid).toBe(before.vmid);
    expect(after.ipv4).toHaveLength(3);
    expect(after.ipv4[2]).toBe("192.168.5.10");
    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("destroys the VM and its seed, leaving nothing", async () => {
    const result = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(result);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
