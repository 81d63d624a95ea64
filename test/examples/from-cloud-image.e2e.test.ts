import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumi } from "../e2e/support/engine";
import { leftoverProcesses, untilNoneLeft } from "../e2e/support/processes";
import { guestVms, importedImages, seedIsos, templateVms } from "../e2e/support/proxmox-stack";
import { IMPORT_STORAGES, serveImages, type ImageServer } from "../simulator/support/image-server";
import { copyExample } from "./support";
import { expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

const IMAGE = Buffer.alloc(512 * 1024, 5);
const NEXT_IMAGE = Buffer.alloc(512 * 1024, 6);
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

interface Outputs {
  templateVmid: number;
  image: string;
  serverVmids: number[];
  runnerVmid: number;
}

describe("examples/from-cloud-image through the real engine against the simulator", () => {
  const { sim, engine, dir } = useStack(
    { dir: copyExample("from-cloud-image") },
    { simulator: { storages: IMPORT_STORAGES, templates: [], defaultTaskMs: 50 } },
  );
  let images: ImageServer;
  const outputs = async (): Promise<Outputs> =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as Outputs;
  const bootDisk = (vmid: number) => String(sim.model.vms.get(vmid)?.config["scsi0"]);
  const setImage = async (path: string, bytes: Buffer) => {
    await pulumi(["config", "set", "imageUrl", `${images.url}${path}`], dir, engine.env);
    await pulumi(["config", "set", "imageSha256", sha256(bytes)], dir, engine.env);
  };

  beforeAll(async () => {
    images = await serveImages({ "/debian-12.qcow2": IMAGE, "/debian-12.1.qcow2": NEXT_IMAGE });
    await setImage("/debian-12.qcow2", IMAGE);
  });
  afterAll(() => images.close());

  it("goes from a cluster with no template to a template, two full clones and a linked clone", async () => {
    expect(templateVms(sim)).toEqual([]);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toMatch(/download on node pve1: 100% of 524288 bytes/);

    const { templateVmid, image, serverVmids, runnerVmid } = await outputs();
    expect(templateVms(sim)).toEqual([templateVmid]);
    expect(importedImages(sim)).toEqual([image]);
    expect(guestVms(sim).sort()).toEqual([...serverVmids, runnerVmid].sort());
    expect(images.requests).toEqual(["/debian-12.qcow2"]);
    // The runner's disk is built on the template's base volume; the servers' are their own.
    expect(bootDisk(runnerVmid)).toMatch(
      new RegExp(`^local-lvm:base-${templateVmid}-disk-0/vm-${runnerVmid}-disk-0,`),
    );
    for (const vmid of serverVmids) expect(bootDisk(vmid)).not.toContain("base-");
  });

  it("passes the drift check on the untouched stack", async () => {
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
  });

  it("replaces the template and the linked clone on a new image, create-first, and keeps the pinned full clones running", async () => {
    const before = await outputs();
    await setImage("/debian-12.1.qcow2", NEXT_IMAGE);

    const preview = await pulumi(["preview"], dir, engine.env);
    expectSuccess(preview);
    for (const name of ["debian-12", "runner"]) {
      expect(preview.stdout).toMatch(
        new RegExp(`\\+-\\s+pulumi-nodejs:dynamic/proxmox:\\w+ ${name} replace`),
      );
    }
    for (const name of ["web", "db"]) {
      expect(preview.stdout).not.toMatch(new RegExp(`proxmox:\\w+ ${name} replace`));
    }

    // Each VM the update deletes: the old linked clone must go before the old template.
    const destroyed: number[] = [];
    const stopWatching = sim.onResponse((entry) => {
      const m = /^\/nodes\/[^/]+\/qemu\/(\d+)$/.exec(entry.path);
      if (entry.method === "DELETE" && m !== null && entry.status === 200) {
        destroyed.push(Number(m[1]));
      }
    });
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    stopWatching();
    expectSuccess(up);
    expect(destroyed).toEqual([before.runnerVmid, before.templateVmid]);

    const after = await outputs();
    expect(after.templateVmid).not.toBe(before.templateVmid);
    expect(templateVms(sim)).toEqual([after.templateVmid]);
    expect(importedImages(sim)).toEqual([after.image]);
    expect(after.runnerVmid).not.toBe(before.runnerVmid);
    expect(bootDisk(after.runnerVmid)).toContain(`base-${after.templateVmid}-disk-0/`);
    expect(after.serverVmids).toEqual(before.serverVmids);
    for (const vmid of after.serverVmids) expect(sim.model.vms.get(vmid)?.status).toBe("running");
    expect(guestVms(sim).sort()).toEqual([...after.serverVmids, after.runnerVmid].sort());
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
  });

  it("destroys the VMs, the template, its image and the seeds, and leaves no provider running", async () => {
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
