import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../../provider/pve/api/dispatcher-registry";
import type { OperationContext } from "../../../provider/pve/context";
import { buildContext } from "../../../provider/pve/connection";
import { createTemplate } from "../../../provider/template/create";
import { deleteTemplate } from "../../../provider/template/delete";
import { checkTemplate, type TemplateInputs } from "../../../provider/template/template-inputs";
import { readTemplate } from "../../../provider/template/read";
import { failure } from "../../support/failure";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../simulator/index";
import {
  IMPORT_STORAGES,
  serveImages,
  type ImageServer,
} from "../../simulator/support/image-server";

/** The template operations against the simulator over HTTP, with an image served on loopback. */

const IMAGE = Buffer.alloc(256 * 1024, 3);
const SHA256 = createHash("sha256").update(IMAGE).digest("hex");
let sim: Simulator;
let images: ImageServer;
let ctx: OperationContext;
let lines: string[];

/** A simulator and a provider context; with `running`, only a new context (a new process). */
async function start(options: SimulatorOptions = {}, running?: Simulator) {
  sim =
    running ?? (await startSimulator({ defaultTaskMs: 20, storages: IMPORT_STORAGES, ...options }));
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  const built = buildContext({ get: (key) => config[key] });
  lines = [];
  ctx = { ...built, progress: (m) => lines.push(m) };
}

beforeEach(async () => {
  images = await serveImages({ "/debian-12.qcow2": IMAGE });
});
afterEach(async () => {
  await sim.close();
  await images.close();
});
afterAll(() => closeSharedDispatchers());

const inputs = (extra: Record<string, unknown> = {}) =>
  checkTemplate({
    identity: { project: "int", stack: "test", name: "debian" },
    url: `${images.url}/debian-12.qcow2`,
    checksum: SHA256,
    checksumAlgorithm: "sha256",
    node: "pve1",
    ...extra,
  }).inputs as TemplateInputs;

const importVolumes = () =>
  sim.model
    .volumes("pve1", "local")
    .filter((volume) => volume.content === "import")
    .map((volume) => volume.volid);

describe("CloudImageTemplate operations", () => {
  it("makes a template from the image, reads it back, and deletes it and its image", async () => {
    await start();
    const state = await createTemplate(ctx, inputs());
    const vm = sim.model.vms.get(state.vmid);
    expect(vm?.config["template"]).toBe(1);
    expect(vm?.config["scsi0"]).toMatch(new RegExp(`^local-lvm:base-${state.vmid}-disk-0`));
    expect(vm?.config).toMatchObject({ serial0: "socket", scsihw: "virtio-scsi-single" });
    expect(String(vm?.config["description"])).toContain('"phase":"complete"');
    expect(importVolumes()).toEqual([state.imageVolid]);
    expect(lines.some((l) => /download on node pve1: 100% of 262144 bytes/.test(l))).toBe(true);

    expect(await readTemplate(ctx, state)).toEqual(state);

    await deleteTemplate(ctx, state);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(importVolumes()).toEqual([]);
    expect(await readTemplate(ctx, state)).toBeUndefined();
  });

  it("reads a boot disk moved to another storage as that storage, and a deleted template as gone", async () => {
    await start();
    const state = await createTemplate(ctx, inputs());
    const disk = String(sim.model.vms.get(state.vmid)?.config["scsi0"]);
    sim.faults.setConfig(state.vmid, { scsi0: disk.replace(/^local-lvm:/, "shared:") });
    expect(await readTemplate(ctx, state)).toMatchObject({ storage: "shared" });

    sim.faults.deleteVm(state.vmid);
    expect(await readTemplate(ctx, state)).toBeUndefined();
  });

  it("deletes the image on the node that downloaded it after the template moved to another node", async () => {
    await start();
    const created = await createTemplate(ctx, inputs({ storage: "shared" }));
    const upid = await ctx.api.migrateVm("pve1", created.vmid, "pve2", false);
    await ctx.waitForTask("pve1", upid, { budgetMs: 10_000, step: "migrate" });
    const moved = await readTemplate(ctx, created);
    expect(moved?.node).toBe("pve2");

    await deleteTemplate(ctx, moved ?? created);
    expect([...sim.model.vms.keys()].filter((id) => id >= 10_000)).toEqual([]);
    expect(importVolumes()).toEqual([]);
    expect(lines).toContain(`${created.imageVolid} on node pve1: deleting`);
  });

  it("deletes an image on a shared import storage once, and leaves nothing", async () => {
    await start({
      storages: [
        ...IMPORT_STORAGES.filter((s) => s.storage !== "shared"),
        { storage: "shared", type: "nfs", content: ["images", "iso", "import"], shared: true },
      ],
    });
    const state = await createTemplate(ctx, inputs({ importStorage: "shared" }));
    const sharedImages = () =>
      sim.model.volumes("pve1", "shared").filter((volume) => volume.content === "import");
    expect(sharedImages().map((volume) => volume.volid)).toEqual([state.imageVolid]);

    await deleteTemplate(ctx, state);
    expect(sharedImages()).toEqual([]);
    expect(sim.model.volumes("pve2", "shared").filter((v) => v.content === "import")).toEqual([]);
    const deletes = sim.requestLog.filter(
      (r) => r.method === "DELETE" && r.path.includes("/storage/shared/content/"),
    );
    expect(deletes).toHaveLength(1);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
  });

  it("refuses to delete a template with a linked clone, naming it, and deletes once it is gone", async () => {
    await start();
    const state = await createTemplate(ctx, inputs());
    const upid = await ctx.api.cloneVm({
      node: "pve1",
      vmid: state.vmid,
      newid: 501,
      name: "web-1",
      full: false,
    });
    await ctx.waitForTask("pve1", upid, { budgetMs: 10_000, step: "clone" });

    const refused = await failure(deleteTemplate(ctx, state));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toContain("still has linked clones: VM 501 (web-1)");
    expect(sim.model.vms.has(state.vmid)).toBe(true);
    expect(importVolumes()).toEqual([state.imageVolid]);

    await ctx.waitForTask("pve1", await ctx.api.destroyVm("pve1", 501), {
      budgetMs: 10_000,
      step: "destroy clone",
    });
    await deleteTemplate(ctx, state);
    expect(sim.model.vms.has(state.vmid)).toBe(false);
    expect(importVolumes()).toEqual([]);
  });

  it("resumes an interrupted create without downloading again", async () => {
    await start();
    sim.faults.failTasks({ type: "qmtemplate" }, "simulated crash");
    await failure(createTemplate(ctx, inputs()));
    expect(images.requests).toHaveLength(1);

    const state = await createTemplate(ctx, inputs());
    expect(images.requests).toHaveLength(1);
    expect(sim.model.vms.get(state.vmid)?.config["template"]).toBe(1);
    expect([...sim.model.vms.keys()].filter((id) => id >= 10_000)).toEqual([state.vmid]);
  });

  it("waits for the download a run that could not read its task status left running, and downloads once", async () => {
    await start({ taskDurationsMs: { download: 1_500 } });
    const first = failure(createTemplate(ctx, inputs()));
    while (![...sim.model.tasks.values()].some((task) => task.type === "download")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // From here on the first run cannot read any task's status: its wait fails.
    sim.faults.failRequests(
      { method: "GET", path: /\/tasks(\/|$)/, count: 1_000 },
      500,
      "simulated",
    );
    expect((await first).message).toMatch(/node pve1/);
    sim.faults.clear();
    const download = [...sim.model.tasks.values()].find((task) => task.type === "download");
    expect(download?.status).toBe("running");

    await start({}, sim);
    const state = await createTemplate(ctx, inputs());
    expect(images.requests).toHaveLength(1);
    expect(importVolumes()).toEqual([state.imageVolid]);
    expect(lines.some((l) => l.includes(`already running (${download?.upid})`))).toBe(true);
  });

  it("finishes the VM a failed run made while the listing still shows pvestatd's placeholder name", async () => {
    // The re-run lists the VMs 0.5 s behind: after the VM appeared as `VM <vmid>`, before its
    // create task wrote the real name (1 s later).
    await start({ listingLagMs: 500, taskDurationsMs: { qmcreate: 1_000 } });
    sim.faults.failTasks({ type: "qmtemplate" }, "simulated failure");
    await failure(createTemplate(ctx, inputs()));

    await start({}, sim);
    const state = await createTemplate(ctx, inputs());
    expect([...sim.model.vms.keys()].filter((id) => id >= 10_000)).toEqual([state.vmid]);
    expect(sim.model.vms.get(state.vmid)?.config["template"]).toBe(1);
  });

  it("waits out a create another run left mid-task and takes that VM, not a second one", async () => {
    await start({ taskDurationsMs: { qmcreate: 1_500 } });
    const first = createTemplate(ctx, inputs());
    // The second run starts while the first one's qmcreate task still holds the VM.
    while (![...sim.model.vms.values()].some((vm) => vm.config["lock"] === "create")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const second = await createTemplate(ctx, inputs());
    // The first run stands for one that crashed: its own end does not matter here.
    await first.catch(() => undefined);
    expect([...sim.model.vms.keys()].filter((id) => id >= 10_000)).toEqual([second.vmid]);
    expect(sim.model.vms.get(second.vmid)?.config["template"]).toBe(1);
    expect(images.requests).toHaveLength(1);
  });

  it("gives up on a create another run left locked past the task budget with a transient TIMEOUT", async () => {
    await start({ taskDurationsMs: { qmcreate: 30_000 } });
    const first = createTemplate(ctx, inputs());
    while (![...sim.model.vms.values()].some((vm) => vm.config["lock"] === "create")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const second = await failure(createTemplate(ctx, inputs({ timeouts: { taskMs: 2_000 } })));
    void first.catch(() => undefined);
    // The task may still end, so the next run may still carry on: never permanent.
    expect(second).toMatchObject({ code: "TIMEOUT", transient: true });
    expect(second.message).toMatch(/^VM \d+ on pve1 is still locked by a create after 2 s/);
    expect(lines).toContainEqual(expect.stringMatching(/waiting for a create in progress/));
  });

  it("fails a wrong checksum at the download, leaving no VM and no image", async () => {
    await start();
    const error = await failure(createTemplate(ctx, inputs({ checksum: "0".repeat(64) })));
    expect(error.code).toBe("TASK_FAILED");
    expect(error.context.taskErrorCode).toBe("CHECKSUM_MISMATCH");
    expect(importVolumes()).toEqual([]);
    expect([...sim.model.vms.keys()].filter((id) => id >= 10_000)).toEqual([]);
  });

  it("fails before any download on PVE 7.4, naming the release needed", async () => {
    await start({ pveVersion: "7.4" });
    const error = await failure(createTemplate(ctx, inputs()));
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.message).toContain("needs PVE 8.4 or later");
    expect(images.requests).toEqual([]);
    expect(sim.requestLog.some((r) => r.path.endsWith("/download-url"))).toBe(false);
  });

  it("fails before any download when the import storage lacks import content, naming it", async () => {
    await start();
    const error = await failure(createTemplate(ctx, inputs({ importStorage: "shared" })));
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.message).toMatch(
      /^importStorage: storage shared on node pve1 does not take import/,
    );
    expect(images.requests).toEqual([]);
  });
});
