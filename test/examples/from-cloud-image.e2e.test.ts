import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { configureProxmoxStack, guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { IMPORT_STORAGES, serveImages, type ImageServer } from "../simulator/support/image-server";
import { copyExample } from "./support";

const IMAGE = Buffer.alloc(512 * 1024, 5);
const NEXT_IMAGE = Buffer.alloc(512 * 1024, 6);
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("examples/from-cloud-image through the real engine against the simulator", () => {
  let sim: Simulator;
  let images: ImageServer;
  let engine: EngineEnv;
  let dir: string;
  const templates = () =>
    [...sim.model.vms].filter(([, vm]) => vm.config["template"]).map(([vmid]) => vmid);
  const importedImages = () =>
    sim.model
      .volumes("pve1", "local")
      .filter((v) => v.content === "import")
      .map((v) => v.volid);

  beforeAll(async () => {
    sim = await startSimulator({ storages: IMPORT_STORAGES, templates: [], defaultTaskMs: 50 });
    images = await serveImages({ "/debian-12.qcow2": IMAGE, "/debian-12.1.qcow2": NEXT_IMAGE });
    engine = engineEnv();
    dir = copyExample("from-cloud-image");
    await configureProxmoxStack(dir, sim, engine);
    const set = (key: string, value: string) =>
      pulumi(["config", "set", key, value], dir, engine.env);
    await set("imageUrl", `${images.url}/debian-12.qcow2`);
    await set("imageSha256", sha256(IMAGE));
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
    await images.close();
  });

  it("goes from a cluster with no template to a template and three VMs cloned from it", async () => {
    expect(templates()).toEqual([]);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toMatch(/download on node pve1: 100% of 524288 bytes/);

    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { templateVmid: number; image: string; vmids: number[]; pinnedVmid: number };
    expect(templates()).toEqual([outputs.templateVmid]);
    expect(importedImages()).toEqual([outputs.image]);
    expect(guestVms(sim).sort()).toEqual([...outputs.vmids, outputs.pinnedVmid].sort());
    expect(images.requests).toEqual(["/debian-12.qcow2"]);
  });

  it("passes the drift check on the untouched stack", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });

  it("replaces the template and its VMs on a new image, create-first, but not the pinned VM", async () => {
    const before = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { templateVmid: number; image: string; vmids: number[]; pinnedVmid: number };
    const set = (key: string, value: string) =>
      pulumi(["config", "set", key, value], dir, engine.env);
    await set("imageUrl", `${images.url}/debian-12.1.qcow2`);
    await set("imageSha256", sha256(NEXT_IMAGE));

    const preview = await pulumi(["preview"], dir, engine.env);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    for (const name of ["debian-12", "web", "db"]) {
      expect(preview.stdout).toMatch(
        new RegExp(`\\+-\\s+pulumi-nodejs:dynamic/proxmox:\\w+ ${name} replace`),
      );
    }

    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const after = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as { templateVmid: number; image: string; vmids: number[]; pinnedVmid: number };
    expect(after.templateVmid).not.toBe(before.templateVmid);
    expect(templates()).toEqual([after.templateVmid]);
    expect(importedImages()).toEqual([after.image]);
    expect(after.pinnedVmid).toBe(before.pinnedVmid);
    expect(sim.model.vms.get(after.pinnedVmid)?.status).toBe("running");
    expect(guestVms(sim).sort()).toEqual([...after.vmids, after.pinnedVmid].sort());
    expect(after.vmids.some((vmid) => before.vmids.includes(vmid))).toBe(false);
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });

  it("destroys the VMs, the template, its image and the seeds", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expect(destroy.code, destroy.stdout + destroy.stderr).toBe(0);
    expect(guestVms(sim)).toEqual([]);
    expect(templates()).toEqual([]);
    expect(importedImages()).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
