import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pulumi } from "../e2e/support/engine";
import { workspaceDir } from "../e2e/support/paths";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { copyExample, readManifest } from "./support";
import { expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

describe("examples/single-vm through the real engine against the simulator", () => {
  const { sim, engine, dir } = useStack(
    { dir: copyExample("single-vm") },
    { simulator: { listingLagMs: 500 } },
  );

  it("depends on pulumi-proxmox by name, in a range the packed version satisfies", () => {
    const manifest = readManifest("single-vm");
    expect(manifest.dependencies["pulumi-proxmox"]).toBe("^0.1.0");
    const installed = JSON.parse(
      fs.readFileSync(path.join(workspaceDir, "node_modules/pulumi-proxmox/package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toMatch(/^0\.1\.\d+$/);
  });

  it("creates the VM from TypeScript with pulumi up and exports its address", async () => {
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain("+ 2 created");

    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { vmid: number; name: string; node: string; ipv4: string[] };
    expect(outputs.node).toBe("pve1");
    expect(outputs.name).toMatch(/^web-[0-9a-f]{6}$/);
    expect(outputs.ipv4[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(guestVms(sim)).toEqual([outputs.vmid]);
    const config = sim.model.vms.get(outputs.vmid)?.config;
    // PVE keeps numbers in a VM config as text; compare them as such.
    expect(["cores", "memory", "tags"].map((key) => String(config?.[key]))).toEqual([
      "2",
      "2048",
      "example;web",
    ]);
    expect(seedIsos(sim)).toHaveLength(1);
  });

  it("passes the drift check on the untouched stack", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
  });

  it("destroys the VM and its seed", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
