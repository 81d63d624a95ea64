import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumi } from "../e2e/support/engine";
import { leftoverProcesses, untilNoneLeft } from "../e2e/support/processes";
import { guestVms, importedImages, seedIsos, templateVms } from "../e2e/support/proxmox-stack";
import { IMPORT_STORAGES } from "../simulator/support/image-server";
import { copyExample } from "./support";
import { expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

interface Served {
  url: string;
  sha256: string;
  bytes: number;
}

describe("examples/demo (plain JavaScript) through the real engine against the simulator", () => {
  // As scripts/demo.sh starts it: no template, `local` taking import content.
  const { sim, engine, dir } = useStack(
    { dir: copyExample("demo") },
    { simulator: { storages: IMPORT_STORAGES, templates: [], listingLagMs: 500 } },
  );
  let server: ChildProcess;
  let served: Served;

  beforeAll(async () => {
    // The demo's own image server, as the demo script starts it.
    server = spawn(process.execPath, [path.join(dir, "image-server.js")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    served = JSON.parse(await firstLine(server)) as Served;
    await pulumi(["config", "set", "imageUrl", served.url], dir, engine.env);
    await pulumi(["config", "set", "imageSha256", served.sha256], dir, engine.env);
  });
  afterAll(async () => {
    const exited = new Promise((done) => server.once("exit", done));
    server.kill("SIGTERM");
    await exited;
  });

  it("makes a template from the image, then web on pve1 and db on pve2 from it", async () => {
    expect(templateVms(sim)).toEqual([]);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain(`download on node pve1: 100% of ${served.bytes} bytes`);
    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as {
      templateVmid: number;
      names: string[];
      nodes: string[];
      ips: string[][];
      vmids: number[];
    };
    expect(templateVms(sim)).toEqual([outputs.templateVmid]);
    expect(importedImages(sim)).toHaveLength(1);
    expect(outputs.names.map((name) => name.slice(0, -7))).toEqual(["web", "db"]);
    expect(outputs.nodes).toEqual(["pve1", "pve2"]);
    for (const ips of outputs.ips) expect(ips[0]).toMatch(/^10\.10\.0\.\d+$/);
    expect(guestVms(sim).sort()).toEqual([...outputs.vmids].sort());
    expect(seedIsos(sim)).toHaveLength(2);
  });

  it("passes the drift check, then destroy leaves no VM, template, image, seed or provider", async () => {
    // Run with the program, as scripts/demo.sh's `pulumi-proxmox drift` runs it: the clean step
    // shows no `[diff:` for the VMs or the template.
    const drift = await pulumi(
      ["preview", "--refresh", "--run-program", "--expect-no-changes"],
      dir,
      engine.env,
    );
    expectSuccess(drift);
    expect(drift.stdout).not.toContain("[diff:");
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(templateVms(sim)).toEqual([]);
    expect(importedImages(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    // Every process the engine started for this stack (its PULUMI_HOME marks them) is gone.
    await untilNoneLeft(engine.marker);
    expect(leftoverProcesses(engine.marker)).toEqual([]);
  });
});

/** The first line a child prints; a child that exits first fails the test. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise<string>((done, fail) => {
    if (!child.stdout) throw new Error("started without a stdout pipe");
    createInterface({ input: child.stdout }).once("line", done);
    child.once("exit", (code) => fail(new Error(`exited with ${code} before printing a line`)));
  });
}
