import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { configureProxmoxStack } from "../e2e/support/proxmox-stack";
import { copyExample, readManifest, run, tsc } from "./support";

describe("examples/fleet against the packed package", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator();
    engine = engineEnv();
    dir = copyExample("fleet");
    await configureProxmoxStack(dir, sim, engine);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("depends on pulumi-proxmox by name", () => {
    expect(readManifest("fleet").dependencies["pulumi-proxmox"]).toBe("^0.1.0");
  });

  it("type-checks against the package's published types", async () => {
    const result = await run("node", [tsc, "-p", dir, "--noEmit"], dir);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it("previews three members under the component, named web-0 to web-2", async () => {
    const preview = await pulumi(["preview"], dir, engine.env);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(preview.stdout).toContain("+ 5 to create");
    for (const name of ["web-0", "web-1", "web-2"]) {
      expect(preview.stdout).toMatch(
        new RegExp(`\\+\\s+pulumi-nodejs:dynamic/proxmox:ProxmoxVm ${name} create`),
      );
    }
  });
});
