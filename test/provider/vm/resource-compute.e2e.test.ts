import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

const program = (settings: { cores: number; rebootPolicy: "allow" | "never" }) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("app", {
  node: "pve1", template: 9000,
  cpu: { type: "host", sockets: 1, cores: ${settings.cores}, numa: true },
  memory: { sizeMiB: 1024, balloonMiB: 512 },
  hotplug: ["network", "disk", "cpu"],
  onBoot: true, startup: { order: 1, up: 10 }, protection: true,
  rebootPolicy: "${settings.rebootPolicy}",
});
exports.vmid = vm.vmid;
exports.pending = vm.pendingChanges;
`;

describe("ProxmoxVm CPU, memory and lifecycle options through the real engine", () => {
  const { sim, engine, dir, up } = useStack({
    name: "compute",
    program: program({ cores: 2, rebootPolicy: "never" }),
  });
  const write = (settings: Parameters<typeof program>[0]) =>
    fs.writeFileSync(path.join(dir, "index.js"), program(settings));
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      vmid: number;
      pending: string[];
    };
  const driftCheck = () =>
    pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"], dir, engine.env);

  beforeAll(() => up());

  it("creates the VM with its CPU, memory and lifecycle keys and settles with zero changes", async () => {
    const { vmid, pending } = await outputs();
    expect(sim.model.vms.get(vmid)?.config).toMatchObject({
      cpu: "host",
      cores: 2,
      numa: 1,
      balloon: 512,
      hotplug: "network,disk,cpu",
      onboot: 1,
      startup: "order=1,up=10",
      protection: 1,
    });
    expect(pending).toEqual([]);
    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("reports a change that waits for a reboot in the diff, the up, pendingChanges and the drift check", async () => {
    write({ cores: 4, rebootPolicy: "never" });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/~ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(update\)/);
    expect(preview.stdout).toMatch(/~ cpu\s*:/);

    const applied = await up();
    const { vmid, pending } = await outputs();
    expect(applied.stdout + applied.stderr).toContain(
      `VM ${vmid} on pve1: cores wait for the next reboot (rebootPolicy is "never")`,
    );
    expect(pending).toEqual(["cores"]);
    const drift = await driftCheck();
    expectFailure(drift);
    expect(drift.stdout).toMatch(/~ pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(update\)/);
    expect(drift.stdout).toMatch(/cpu\s*:/);
  });

  it("applies the pending change once rebootPolicy allows the reboot, then settles", async () => {
    write({ cores: 4, rebootPolicy: "allow" });
    await up();
    const { vmid, pending } = await outputs();
    expect(pending).toEqual([]);
    expect(sim.model.vms.get(vmid)?.config["cores"]).toBe(4);
    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("destroys the protected VM, leaving no VM and no seed", async () => {
    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroyed);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
