import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweep, type SweepReport } from "../../cli/sweep";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
import { parseConnectionConfig, type ConnectionConfig } from "../../provider/pve/config";
import type { OperationContext } from "../../provider/pve/context";
import { buildContext } from "../../provider/pve/connection";
import { TEMPLATE_TYPE } from "../../provider/entry";
import { createTemplate } from "../../provider/template/create";
import { ensureImage } from "../../provider/template/download";
import { checkTemplate, type TemplateInputs } from "../../provider/template/template-inputs";
import { planOf } from "../../provider/template/mark";
import type { TemplateState } from "../../provider/template/state";
import { startSimulator, type Simulator } from "../../simulator";
import { failure } from "../support/failure";
import { IMPORT_STORAGES, serveImages, type ImageServer } from "../simulator/support/image-server";

/**
 * sweep over CloudImageTemplates, against the simulator: one template a state owns, one whose
 * state was lost (with a linked clone), one a killed run left before its conversion, and an
 * image a failed import left with no template.
 */
describe("sweep of templates and downloaded images", () => {
  let sim: Simulator;
  let images: ImageServer;
  let ctx: OperationContext;
  let connection: ConnectionConfig;
  let dir: string;
  let stateFile: string;
  let owned: TemplateState;
  let lost: TemplateState;
  let unfinished: string;
  let loose: string;

  const inputs = (name: string) =>
    checkTemplate({
      identity: { project: "int", stack: "sweep", name },
      url: `${images.url}/debian-12.qcow2`,
      node: "pve1",
    }).inputs as TemplateInputs;
  const run = (apply: boolean): Promise<SweepReport> =>
    sweep({ connection, stacks: [], stateFiles: [stateFile], apply });
  /** The report's rows as [action, kind, target], in a fixed order (VMIDs follow the hashes). */
  const rows = (report: SweepReport) =>
    report.items.map((i) => [i.action, i.kind, i.target]).sort(byTarget);
  const byTarget = (a: unknown[], b: unknown[]) =>
    `${String(a[1])} ${String(a[2])}`.localeCompare(`${String(b[1])} ${String(b[2])}`);
  const detailOf = (report: SweepReport, target: string) =>
    report.items.find((i) => i.target.includes(target))?.detail;
  const importImages = () =>
    sim.model
      .volumes("pve1", "local")
      .filter((v) => v.content === "import")
      .map((v) => v.volid)
      .sort();
  const templateVmids = () => [...sim.model.vms.keys()].filter((id) => id >= 10_000).sort();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sweep-templates-"));
    // Templates need 8.4 or later: pinned, whatever PVE_SIM_VERSION the suite runs under.
    sim = await startSimulator({ pveVersion: "8.4", defaultTaskMs: 20, storages: IMPORT_STORAGES });
    images = await serveImages({ "/debian-12.qcow2": Buffer.alloc(64 * 1024, 4) });
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = { ...buildContext({ get: (key) => config[key] }), progress: () => undefined };
    connection = parseConnectionConfig(
      { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
      { env: {} },
    );

    owned = await createTemplate(ctx, inputs("owned"));
    lost = await createTemplate(ctx, inputs("lost"));
    const clone = await ctx.api.cloneVm({
      node: "pve1",
      vmid: lost.vmid,
      newid: 501,
      name: "web-1",
      full: false,
    });
    await ctx.waitForTask("pve1", clone, { budgetMs: 10_000, step: "clone" });
    // A run killed before the conversion: a VM with the template mark in phase `creating`.
    sim.faults.failTasks({ type: "qmtemplate" }, "simulated crash");
    await failure(createTemplate(ctx, inputs("unfinished")));
    unfinished = planOf(inputs("unfinished")).imageVolid;
    // A run killed after the download, before the import: the image, and no VM naming it.
    await ensureImage(ctx, inputs("loose"), planOf(inputs("loose")));
    loose = planOf(inputs("loose")).imageVolid;

    stateFile = path.join(dir, "state.json");
    writeFileSync(
      stateFile,
      JSON.stringify({
        deployment: { resources: [{ type: TEMPLATE_TYPE, inputs: {}, outputs: owned }] },
      }),
    );
  });
  afterAll(async () => {
    await closeSharedDispatchers();
    await sim.close();
    await images.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the lost and the unfinished template and the loose image, not what the state owns", async () => {
    const vmids = templateVmids();
    const report = await run(false);
    const unfinishedVmid = vmids.find((id) => id !== owned.vmid && id !== lost.vmid);
    expect(vmids).toHaveLength(3);
    const unfinishedName = planOf(inputs("unfinished")).vmName;
    expect(rows(report)).toEqual(
      [
        ["orphan", "template", `template ${lost.vmid} on pve1 (${lost.vmName})`],
        ["orphan", "template", `template ${unfinishedVmid} on pve1 (${unfinishedName})`],
        ["orphan", "image", loose],
      ].sort(byTarget),
    );
    expect(detailOf(report, lost.vmName)).toBe(`mark phase complete; image ${lost.imageVolid}`);
    expect(detailOf(report, unfinishedName)).toBe(
      `mark phase creating, not converted yet; image ${unfinished}`,
    );
    expect(detailOf(report, loose)).toBe("on local of node pve1; no template references it");
    // A dry run: everything is still there.
    expect(templateVmids()).toEqual(vmids);
    expect(importImages()).toEqual([owned.imageVolid, lost.imageVolid, unfinished, loose].sort());
  });

  it("deletes in order with --apply, refusing the template a linked clone holds until it is gone", async () => {
    const unfinishedName = planOf(inputs("unfinished")).vmName;
    const unfinishedVmid = [...sim.model.vms].find(
      ([, vm]) => vm.config["name"] === unfinishedName,
    )?.[0];
    const first = await run(true);
    expect(rows(first)).toEqual(
      [
        ["skipped", "template", `template ${lost.vmid} on pve1 (${lost.vmName})`],
        ["deleted", "template", `template ${unfinishedVmid} on pve1 (${unfinishedName})`],
        ["deleted", "image", loose],
      ].sort(byTarget),
    );
    expect(detailOf(first, lost.vmName)).toContain("still has linked clones: VM 501 (web-1)");
    expect(first.exitCode).toBe(0);
    expect(templateVmids()).toEqual([owned.vmid, lost.vmid].sort());
    expect(importImages()).toEqual([owned.imageVolid, lost.imageVolid].sort());

    await ctx.waitForTask("pve1", await ctx.api.destroyVm("pve1", 501), {
      budgetMs: 10_000,
      step: "destroy clone",
    });
    const second = await run(true);
    expect(rows(second)).toEqual([
      ["deleted", "template", `template ${lost.vmid} on pve1 (${lost.vmName})`],
    ]);
    // What is left is what the state owns, unlocked; the next sweep finds nothing.
    expect(templateVmids()).toEqual([owned.vmid]);
    expect(sim.model.vms.get(owned.vmid)?.config["lock"]).toBeUndefined();
    expect(importImages()).toEqual([owned.imageVolid]);
    expect((await run(false)).items).toEqual([]);
  });

  it("names an interrupted run's image, and skips a locked template until its lock is gone", async () => {
    // A run killed mid-download of "killed": the state holds only its pending create.
    await ensureImage(ctx, inputs("killed"), planOf(inputs("killed")));
    const busy = await createTemplate(ctx, inputs("busy"));
    sim.faults.setConfig(busy.vmid, { lock: "backup" });
    const pendingFile = path.join(dir, "pending.json");
    const killed = { type: TEMPLATE_TYPE, inputs: inputs("killed") };
    writeFileSync(
      pendingFile,
      JSON.stringify({
        deployment: {
          resources: [{ type: TEMPLATE_TYPE, inputs: {}, outputs: owned }],
          pending_operations: [{ type: "creating", resource: killed }],
        },
      }),
    );
    const sweepWith = (apply: boolean) =>
      sweep({ connection, stacks: [], stateFiles: [pendingFile], apply });

    const listed = await sweepWith(false);
    const killedImage = planOf(inputs("killed")).imageVolid;
    expect(detailOf(listed, killedImage)).toBe(
      "on local of node pve1; no template references it, " +
        "orphan of an interrupted run (only a pending create holds it)",
    );

    const applied = await sweepWith(true);
    expect(rows(applied)).toEqual(
      [
        ["deleted", "image", killedImage],
        ["skipped", "template", `template ${busy.vmid} on pve1 (${busy.vmName})`],
      ].sort(byTarget),
    );
    expect(detailOf(applied, busy.vmName)).toBe(
      "locked (backup): a task may still run on it; sweep again later",
    );
    expect(templateVmids()).toEqual([owned.vmid, busy.vmid].sort());

    sim.faults.setConfig(busy.vmid, { lock: null });
    expect(rows(await sweepWith(true))).toEqual([
      ["deleted", "template", `template ${busy.vmid} on pve1 (${busy.vmName})`],
    ]);
    expect(templateVmids()).toEqual([owned.vmid]);
    expect(importImages()).toEqual([owned.imageVolid]);
  });
});
