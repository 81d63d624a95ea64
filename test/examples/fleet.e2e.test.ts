import { describe, expect, it } from "vitest";
import { pulumi } from "../e2e/support/engine";
import { guestVms } from "../e2e/support/proxmox-stack";
import { copyExample, readManifest, run, tsc } from "./support";
import { expectFailure, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

describe("examples/fleet against the packed package", () => {
  const { sim, engine, dir } = useStack({ dir: copyExample("fleet") });

  it("depends on pulumi-proxmox by name", () => {
    expect(readManifest("fleet").dependencies["pulumi-proxmox"]).toBe("^0.1.0");
  });

  it("type-checks against the package's published types", async () => {
    const result = await run("node", [tsc, "-p", dir, "--noEmit"], dir);
    expectSuccess(result);
  });

  it("previews three members under the component, named web-0 to web-2", async () => {
    const preview = await pulumi(["preview"], dir, engine.env);
    expectSuccess(preview);
    expect(preview.stdout).toContain("+ 5 to create");
    for (const name of ["web-0", "web-1", "web-2"]) {
      expect(preview.stdout).toMatch(
        new RegExp(`\\+\\s+pulumi-nodejs:dynamic/proxmox:ProxmoxVm ${name} create`),
      );
    }
  });

  it("refuses a network too small for the count before anything is created, then previews a fitting one", async () => {
    const set = (key: string, value: string) =>
      pulumi(["config", "set", key, value], dir, engine.env);
    expect((await set("cidr", "10.0.0.0/30")).code).toBe(0);
    expect((await set("gateway", "10.0.0.1")).code).toBe(0);
    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    expect(preview.stdout + preview.stderr).toContain(
      "VmFleet web: ipv4.cidr: has room for 1 member from 10.0.0.2 to 10.0.0.2, but count is 3",
    );
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(up);
    expect(guestVms(sim)).toEqual([]);

    expect((await set("cidr", "10.0.0.0/24")).code).toBe(0);
    const fits = await pulumi(["preview", "--diff"], dir, engine.env);
    expectSuccess(fits);
    for (const address of ["10.0.0.2/24", "10.0.0.3/24", "10.0.0.4/24"]) {
      expect(fits.stdout).toContain(address);
    }
  });
});
