import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli";
import { doctor, type DoctorReport } from "../../cli/doctor";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
import { parseConnectionConfig } from "../../provider/pve/config";
import { buildContext } from "../../provider/pve/connection";
import { createTemplate } from "../../provider/template/create";
import { deleteTemplate } from "../../provider/template/delete";
import { checkTemplate, type TemplateInputs } from "../../provider/template/template-inputs";
import { startSimulator, type Simulator } from "../../simulator";
import { failure } from "../support/failure";
import { IMPORT_STORAGES, serveImages, type ImageServer } from "../simulator/support/image-server";

describe("doctor for a CloudImageTemplate (--import-storage)", () => {
  const IMAGE = Buffer.alloc(128 * 1024, 9);
  let sim: Simulator;
  let images: ImageServer;
  beforeAll(async () => {
    // Templates need 8.4 or later: pinned, whatever PVE_SIM_VERSION the suite runs under.
    sim = await startSimulator({ pveVersion: "8.4", defaultTaskMs: 20, storages: IMPORT_STORAGES });
    images = await serveImages({ "/debian-12.qcow2": IMAGE });
  });
  afterAll(async () => {
    await closeSharedDispatchers();
    await sim.close();
    await images.close();
  });

  const connect = (token: string) =>
    parseConnectionConfig(
      { endpoint: sim.url, apiToken: token, caCert: sim.caCertPem },
      { env: {} },
    );
  const templateDoctor = (token: string) =>
    doctor({ connection: connect(token), importStorage: "local", nodes: ["pve1"] });
  const failedNames = (report: DoctorReport) =>
    report.checks.filter((c) => c.status === "fail").map((c) => c.name);
  /** The printed role on each printed path, `without` left out of the role. */
  function printedAcls(report: DoctorReport, without?: string) {
    const privileges = (/-privs "([^"]+)"/.exec(report.role[0] ?? "")?.[1] ?? "")
      .split(" ")
      .filter((p) => p !== without);
    return report.role
      .flatMap((line) => /^pveum acl modify (\S+) -token /.exec(line)?.[1] ?? [])
      .map((path) => ({ path, privileges }));
  }
  /** The template operations as the provider runs them, with `token`. */
  function templateContext(token: string) {
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": token,
      "proxmox:caCert": sim.caCertPem,
    };
    return { ...buildContext({ get: (key) => config[key] }), progress: () => undefined };
  }
  const templateInputs = (name: string) =>
    checkTemplate({
      identity: { project: "doctor", stack: "test", name },
      url: `${images.url}/debian-12.qcow2`,
      node: "pve1",
    }).inputs as TemplateInputs;
  const templatesLeft = () => [...sim.model.vms.keys()].filter((vmid) => vmid >= 10_000);
  const importImages = () =>
    sim.model.volumes("pve1", "local").filter((v) => v.content === "import");

  it("checks the release, the import storage and the narrowest privileges, without a template", async () => {
    const report = await templateDoctor(sim.apiToken);
    expect(failedNames(report)).toEqual([]);
    const row = (name: string) => report.checks.find((c) => c.name === name);
    expect(row("cloud-image import")?.detail).toBe("PVE 8.4.1 imports qcow2, raw and vmdk images");
    expect(row("import storage local on pve1")).toMatchObject({
      status: "ok",
      detail: "dir, accepts import",
    });
    expect(row("disk storage local-lvm on pve1")?.status).toBe("ok");
    expect(row("Sys.AccessNetwork on /nodes/pve1")?.status).toBe("ok");
    expect(row("Datastore.AllocateTemplate on /storage/local")?.status).toBe("ok");
    expect(row("Datastore.AllocateSpace on /storage/local-lvm")?.status).toBe("ok");
    expect(report.role[0]).toContain("Sys.AccessNetwork");
    expect(report.role[0]).not.toContain("Sys.Modify");
    expect(report.checks.some((c) => c.area === "template" && c.name.startsWith("template "))).toBe(
      false,
    );
  });

  it("passes with the printed role on the printed paths, which makes and deletes a template", async () => {
    const token = sim.addToken("tmpl@pve!least", printedAcls(await templateDoctor(sim.apiToken)));
    expect(failedNames(await templateDoctor(token))).toEqual([]);

    const ctx = templateContext(token);
    const state = await createTemplate(ctx, templateInputs("least"));
    expect(sim.model.vms.get(state.vmid)?.config["template"]).toBe(1);
    await deleteTemplate(ctx, state);
    expect(templatesLeft()).toEqual([]);
    expect(importImages()).toEqual([]);
  });

  it("fails without Sys.AccessNetwork, naming the broader grant, and PVE refuses the download", async () => {
    const acls = printedAcls(await templateDoctor(sim.apiToken), "Sys.AccessNetwork");
    const token = sim.addToken("tmpl@pve!nonet", acls);
    const report = await templateDoctor(token);
    expect(failedNames(report)).toEqual(["Sys.AccessNetwork on /nodes/pve1"]);
    expect(report.checks.find((c) => c.status === "fail")?.detail).toBe(
      "missing: needed to let PVE fetch the image's URL (download-url) (or Sys.Audit + Sys.Modify on /)",
    );
    const refused = await failure(createTemplate(templateContext(token), templateInputs("nonet")));
    expect(refused.code).toBe("FORBIDDEN");
    // The next look finds nothing made: no VM, no image.
    expect(templatesLeft()).toEqual([]);
    expect(importImages()).toEqual([]);

    // The broader grant PVE also takes passes doctor.
    const broader = sim.addToken("tmpl@pve!broad", [
      ...acls,
      { path: "/", privileges: ["Sys.Audit", "Sys.Modify"] },
    ]);
    expect(failedNames(await templateDoctor(broader))).toEqual([]);
  });

  it("fails an import storage without import content, and a release before 8.4", async () => {
    const plain = await startSimulator({ pveVersion: "7.4" });
    try {
      const report = await doctor({
        connection: parseConnectionConfig(
          { endpoint: plain.url, apiToken: plain.apiToken, caCert: plain.caCertPem },
          { env: {} },
        ),
        importStorage: "local",
        nodes: ["pve1"],
      });
      expect(failedNames(report)).toEqual(["cloud-image import", "import storage local on pve1"]);
      expect(report.checks.find((c) => c.name === "cloud-image import")?.detail).toMatch(
        /^PVE 7\.4\S* cannot import a disk image over the API: CloudImageTemplate needs PVE 8\.4 or later$/,
      );
      expect(report.checks.find((c) => c.name === "import storage local on pve1")?.detail).toBe(
        "does not accept import (content: backup,iso,vztmpl)",
      );
    } finally {
      await plain.close();
    }
  });

  it("takes --import-storage on the command line and prints the template's rows, and no role when nothing is missing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pp-doctor-tmpl-"));
    try {
      fs.writeFileSync(path.join(dir, "ca.pem"), sim.caCertPem);
      fs.writeFileSync(path.join(dir, "token"), sim.apiToken);
      let stdout = "";
      const code = await main(
        [
          "doctor",
          ...["--endpoint", sim.url, "--ca-cert", path.join(dir, "ca.pem")],
          ...["--api-token-file", path.join(dir, "token")],
          ...["--import-storage", "local", "--node", "pve1"],
        ],
        { stdout: (t) => void (stdout += t), stderr: () => undefined },
      );
      expect(stdout).toMatch(/ok\s+cloud-image import\s+PVE 8\.4\.1 imports qcow2, raw and vmdk/);
      expect(stdout).toMatch(/ok\s+import storage local on pve1\s+dir, accepts import/);
      expect(stdout).toMatch(/ok\s+Sys\.AccessNetwork on \/nodes\/pve1\s+let PVE fetch/);
      expect(stdout).not.toContain("pveum");
      expect(code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("needs --template or --import-storage on the command line", async () => {
    let stderr = "";
    const code = await main(["doctor", "--endpoint", sim.url], {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
    });
    expect(code).toBe(1);
    expect(stderr).toContain("--template");
  });
});
