import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../cli";
import { doctor, type DoctorReport } from "../../cli/doctor";
import { requirements, roleCommands, type Requirement } from "../../cli/doctor-privileges";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
import { HttpProxmoxApi } from "../../provider/pve/api/http-api";
import { waitForTask } from "../../provider/pve/tasks/task-wait";
import type { ProxmoxError } from "../../provider/pve/errors";
import { TestClient } from "../simulator/support/client";
import { parseConnectionConfig } from "../../provider/pve/config";
import { buildContext } from "../../provider/pve/connection";
import { createTemplate } from "../../provider/template/create";
import { deleteTemplate } from "../../provider/template/delete";
import { checkTemplate, type TemplateInputs } from "../../provider/template/template-inputs";
import { PVE_VERSIONS, startSimulator, VERSION_PROFILES, type Simulator } from "../../simulator";
import { failure } from "../support/failure";
import { IMPORT_STORAGES, serveImages, type ImageServer } from "../simulator/support/image-server";
import { versionProfile } from "../../simulator/model/versions";

/** The release the simulator answers as (`PVE_SIM_VERSION`, else 8.4) and its major. */
const PROFILE = versionProfile(undefined);
const MAJOR = Number.parseInt(PROFILE.version.release, 10);

/** The minimal role per PVE major, written out: SDN.Use from 8, VM.GuestAgent.Audit from 9. */
const ROLES: Readonly<Record<number, string>> = {
  7:
    'pveum role add PulumiProxmox -privs "Datastore.Allocate Datastore.AllocateSpace ' +
    "Datastore.AllocateTemplate Datastore.Audit Sys.Audit VM.Allocate VM.Audit VM.Clone " +
    "VM.Config.CDROM VM.Config.CPU VM.Config.Disk VM.Config.HWType VM.Config.Memory VM.Config.Network " +
    'VM.Config.Options VM.Migrate VM.Monitor VM.PowerMgmt"',
  8:
    'pveum role add PulumiProxmox -privs "Datastore.Allocate Datastore.AllocateSpace ' +
    "Datastore.AllocateTemplate Datastore.Audit SDN.Use Sys.Audit VM.Allocate VM.Audit VM.Clone " +
    "VM.Config.CDROM VM.Config.CPU VM.Config.Disk VM.Config.HWType VM.Config.Memory VM.Config.Network " +
    'VM.Config.Options VM.Migrate VM.Monitor VM.PowerMgmt"',
  9:
    'pveum role add PulumiProxmox -privs "Datastore.Allocate Datastore.AllocateSpace ' +
    "Datastore.AllocateTemplate Datastore.Audit SDN.Use Sys.Audit VM.Allocate VM.Audit VM.Clone " +
    "VM.Config.CDROM VM.Config.CPU VM.Config.Disk VM.Config.HWType VM.Config.Memory VM.Config.Network " +
    'VM.Config.Options VM.GuestAgent.Audit VM.Migrate VM.PowerMgmt"',
};

/** What the provider needs against the default simulator: template 9000 on pve1. */
function needsOn(pveMajor: number): Requirement[] {
  return requirements({
    templateVmid: 9000,
    diskStorages: ["shared"],
    isoStorage: "local",
    bridges: ["vmbr0"],
    nodes: ["pve1"],
    pveMajor,
  });
}
/** The privileges to grant: the first of each any-of list, as the printed role does. */
const grantable = (needs: readonly Requirement[]): string[] =>
  [...new Set(needs.map((n) => n.privilege.split("|")[0] ?? ""))].sort();
const escape = (text: string): string => text.replace(/[.|]/g, (c) => `\\${c}`);

const NEEDS = needsOn(MAJOR);
const PRIVILEGES = grantable(NEEDS);

describe("doctor", () => {
  let sim: Simulator;
  let dir: string;
  let ca: string;
  beforeAll(async () => {
    sim = await startSimulator();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pp-doctor-"));
    ca = path.join(dir, "ca.pem");
    fs.writeFileSync(ca, sim.caCertPem);
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function run(token: string, ...flags: string[]) {
    const tokenFile = path.join(dir, `token-${Math.random().toString(16).slice(2)}`);
    fs.writeFileSync(tokenFile, token);
    let stdout = "";
    let stderr = "";
    const code = await main(
      ["doctor", "--endpoint", sim.url, "--ca-cert", ca, "--api-token-file", tokenFile, ...flags],
      { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
    );
    return { code, stdout, stderr };
  }
  const failed = (stdout: string) =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("FAIL "))
      .map((line) => line.split(/\s{2,}/)[1]);

  it("passes every check with a full-privilege token and prints no role to grant", async () => {
    const result = await run(sim.apiToken, "--template", "9000");
    expect(result.stderr).toBe("");
    expect(failed(result.stdout)).toEqual([]);
    expect(result.stdout).toContain("token root@pam!ci");
    expect(result.stdout).toMatch(
      /ok\s+template 9000\s+VM 9000 on pve1 \(debian-12-cloud\) is a template/,
    );
    expect(result.stdout).toMatch(/ok\s+disk storage shared on pve1\s+nfs, accepts images, shared/);
    expect(result.stdout).toMatch(/ok\s+ISO storage local on pve1\s+dir, accepts iso/);
    expect(result.stdout).toMatch(/ok\s+node pve1\s+online/);
    expect(result.stdout).toMatch(/ok\s+clock skew\s+-?[0-2] s \(server Date header\)/);
    for (const need of NEEDS) {
      expect(result.stdout).toMatch(
        new RegExp(`ok\\s+${escape(need.privilege)} on ${need.path}\\s`),
      );
    }
    expect(result.stdout).not.toContain("pveum");
    expect(result.stdout).toContain("All checks passed.");
    expect(result.code).toBe(0);
  });

  it("checks a password login and grants the role to its user alone", async () => {
    // Everything but the seed upload's privilege (every release has it): the role to grant is
    // printed, for the user alone.
    sim.addUser("ops@pve", "ops-password-marker", [
      { path: "/", privileges: PRIVILEGES.filter((p) => p !== "Datastore.AllocateTemplate") },
    ]);
    vi.stubEnv("PROXMOX_VE_API_TOKEN", "");
    vi.stubEnv("PROXMOX_VE_API_TOKEN_FILE", "");
    vi.stubEnv("PROXMOX_VE_USERNAME", "ops@pve");
    try {
      let stdout = "";
      const args = ["doctor", "--endpoint", sim.url, "--ca-cert", ca, "--template", "9000"];
      const io = { stdout: (t: string) => void (stdout += t), stderr: () => undefined };
      vi.stubEnv("PROXMOX_VE_PASSWORD", "ops-password-marker");
      expect(await main(args, io)).toBe(1);
      expect(stdout).toContain(`pulumi-proxmox doctor: ${sim.url} as ops@pve`);
      expect(stdout).toMatch(/ok\s+user ops@pve\s+accepted/);
      expect(failed(stdout)).toEqual(["Datastore.AllocateTemplate on /storage/local"]);
      expect(stdout).toContain(
        "pveum acl modify /storage/local -user 'ops@pve' -role PulumiProxmox",
      );
      expect(stdout).not.toContain("-token");

      stdout = "";
      vi.stubEnv("PROXMOX_VE_PASSWORD", "not-the-password");
      expect(await main(args, io)).toBe(1);
      expect(failed(stdout)).toEqual(["user ops@pve"]);
      expect(stdout).toContain("rejected (401): check the username and password");
      expect(stdout).not.toContain("not-the-password");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("finds the template by name", async () => {
    const result = await run(sim.apiToken, "--template", "debian-12-cloud");
    expect(failed(result.stdout)).toEqual([]);
    expect(result.code).toBe(0);
  });

  it("reports a rejected token as a 401 and stops", async () => {
    const result = await run("root@pam!ci=not-the-secret", "--template", "9000");
    expect(failed(result.stdout)).toEqual(["token root@pam!ci"]);
    expect(result.stdout).toContain("rejected (401)");
    expect(result.stdout).not.toContain("not-the-secret");
    expect(result.code).toBe(1);
  });

  it.each(PRIVILEGES)("names %s when the token lacks it", async (missing) => {
    const id = `ci@pve!no-${missing.replace(/\./g, "-").toLowerCase()}`;
    const token = sim.addToken(id, [
      { path: "/", privileges: PRIVILEGES.filter((p) => p !== missing) },
    ]);
    const result = await run(token, "--template", "9000");
    const privilegeRows = failed(result.stdout).filter((name) => / on \//.test(name ?? ""));
    expect(privilegeRows).toEqual(
      NEEDS.filter((n) => n.privilege.split("|")[0] === missing).map(
        (n) => `${n.privilege} on ${n.path}`,
      ),
    );
    expect(result.stdout).toMatch(
      new RegExp(`FAIL\\s+${escape(missing)}\\S* on /\\S*\\s+missing: needed to`),
    );
    expect(result.code).toBe(1);
  });

  it("prints the role and the paths for a token without privileges, and they are exactly enough", async () => {
    // VM.Audit alone: enough to read the template, whose storages decide the paths.
    const audit = [{ path: "/vms", privileges: ["VM.Audit"] }];
    const bare = await run(sim.addToken("ci@pve!bare", audit), "--template", "9000");
    expect(bare.code).toBe(1);
    expect(bare.stdout).toContain(ROLES[MAJOR]);
    const printed = [...bare.stdout.matchAll(/pveum acl modify (\S+) -token 'ci@pve!bare'/g)];
    const paths = printed.map((match) => match[1] ?? "");
    expect([...paths].sort()).toEqual(
      [
        "/vms",
        "/storage/shared",
        "/storage/local",
        ...(MAJOR >= 8 ? ["/sdn/zones/localnetwork/vmbr0"] : []),
        "/nodes/pve1",
      ].sort(),
    );
    const token = sim.addToken(
      "ci@pve!least",
      paths.map((p) => ({ path: p, privileges: PRIVILEGES })),
    );
    const result = await run(token, "--template", "9000");
    expect(failed(result.stdout)).toEqual([]);
    expect(result.stdout).not.toContain("pveum");
    expect(result.code).toBe(0);
  });

  it("grants the role only on the path of what is missing", async () => {
    const token = sim.addToken("ci@pve!no-iso", [
      { path: "/vms", privileges: PRIVILEGES },
      { path: "/storage/shared", privileges: PRIVILEGES },
      { path: "/sdn", privileges: PRIVILEGES },
      { path: "/nodes", privileges: PRIVILEGES },
    ]);
    const result = await run(token, "--template", "9000");
    expect(result.code).toBe(1);
    expect([...result.stdout.matchAll(/pveum acl modify (\S+) -token/g)].map((m) => m[1])).toEqual([
      "/storage/local",
    ]);
  });

  it("fails a missing template, an ISO storage without iso content and a node that is down", async () => {
    sim.faults.nodeDown("pve2");
    try {
      const result = await run(
        sim.apiToken,
        "--template",
        "no-such-template",
        "--node",
        "pve2",
        "--iso-storage",
        "local-lvm",
      );
      expect(failed(result.stdout)).toEqual([
        "template no-such-template",
        "node pve2",
        "node pve2 answers",
      ]);
      expect(result.stdout).toContain("not found on the cluster");
      expect(result.code).toBe(1);
    } finally {
      sim.faults.nodeUp("pve2");
    }
    const report = await doctor({
      connection: parseConnectionConfig(
        { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
        { env: {} },
      ),
      template: "9000",
      isoStorage: "local-lvm",
    });
    expect(report.checks.filter((c) => c.status === "fail")).toEqual([
      {
        area: "storage",
        name: "ISO storage local-lvm on pve1",
        status: "fail",
        detail: "does not accept iso (content: images,rootdir)",
      },
    ]);
    expect(report.exitCode).toBe(1);
  });
});

describe.each(PVE_VERSIONS)("doctor's privilege table, proven against PVE %s", (pveVersion) => {
  const major = Number.parseInt(pveVersion, 10);
  const needs = needsOn(major);
  const privileges = grantable(needs);
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ pveVersion, defaultTaskMs: 20, guestBootMs: 20 });
  });
  afterAll(async () => {
    await closeSharedDispatchers();
    await sim.close();
  });

  const connect = (token: string) =>
    parseConnectionConfig(
      { endpoint: sim.url, apiToken: token, caCert: sim.caCertPem },
      { env: {} },
    );
  /** Grants the printed role on the printed paths, leaving out `without`. */
  function grantRole(id: string, without?: string): string {
    const paths = roleCommands(needs, { tokenId: id })
      .map((line) => /^pveum acl modify (\S+) -token /.exec(line)?.[1])
      .filter((path): path is string => path !== undefined);
    return sim.addToken(
      id,
      paths.map((path) => ({ path, privileges: privileges.filter((p) => p !== without) })),
    );
  }
  async function refusal(promise: Promise<unknown>): Promise<ProxmoxError> {
    try {
      await promise;
    } catch (error) {
      return error as ProxmoxError;
    }
    throw new Error("the call was not refused");
  }
  let nextVmid = 200;
  async function clonedAndStarted(api: HttpProxmoxApi): Promise<number> {
    const newid = (nextVmid += 1);
    const clone = await api.cloneVm({ node: "pve1", vmid: 9000, newid, name: "doc", full: false });
    await waitForTask(api, "pve1", clone, { budgetMs: 10_000 });
    await waitForTask(api, "pve1", await api.startVm("pve1", newid), { budgetMs: 10_000 });
    await new Promise((r) => setTimeout(r, 60));
    return newid;
  }

  it("passes doctor with the printed role on the printed paths, which clones, starts and reads the agent", async () => {
    const token = grantRole(`role${major}@pve!least`);
    const report = await doctor({ connection: connect(token), template: "9000" });
    expect(report.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(report.pveVersion).toBe(VERSION_PROFILES[pveVersion].version.version);
    const api = new HttpProxmoxApi({ connection: connect(token), timeoutMs: 5_000 });
    const vmid = await clonedAndStarted(api);
    const interfaces = await api.agentInterfaces("pve1", vmid);
    expect(interfaces.map((nic) => nic.name)).toContain("eth0");
  });

  const agentPrivilege = major >= 9 ? "VM.GuestAgent.Audit" : "VM.Monitor";
  it(`fails doctor without ${agentPrivilege}, and PVE refuses the agent read naming it`, async () => {
    const token = grantRole(`noagent${major}@pve!tok`, agentPrivilege);
    const report = await doctor({ connection: connect(token), template: "9000" });
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual([
      `${major >= 9 ? "VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted" : "VM.Monitor"} on /vms`,
    ]);
    const vmid = await clonedAndStarted(
      new HttpProxmoxApi({ connection: connect(sim.apiToken), timeoutMs: 5_000 }),
    );
    const api = new HttpProxmoxApi({ connection: connect(token), timeoutMs: 5_000 });
    const error = await refusal(api.agentInterfaces("pve1", vmid));
    expect([error.code, error.context.aclPath, error.context.privilege]).toEqual([
      "FORBIDDEN",
      `/vms/${vmid}`,
      major >= 9 ? "VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted" : "VM.Monitor",
    ]);
  });

  it.skipIf(major < 8)(
    "fails doctor --mapping without Mapping.Use on the mapping, and PVE refuses the device naming it",
    async () => {
      sim.faults.setMapping("pci", "gpu0", { map: ["node=pve1,path=0000:01:00.0,id=10de:2204"] });
      // The printed role without --mapping: everything but the mapping.
      const token = grantRole(`nomap${major}@pve!tok`);
      const mappings = [{ type: "pci" as const, id: "gpu0" }];
      const report = await doctor({ connection: connect(token), template: "9000", mappings });
      expect(report.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual([
        "Mapping.Use on /mapping/pci/gpu0",
        "Mapping.Audit|Mapping.Use on /mapping/pci/gpu0",
      ]);
      const vmid = await clonedAndStarted(
        new HttpProxmoxApi({ connection: connect(sim.apiToken), timeoutMs: 5_000 }),
      );
      const api = new HttpProxmoxApi({ connection: connect(token), timeoutMs: 5_000 });
      const error = await refusal(
        api.updateVmConfigSync("pve1", vmid, { set: { hostpci0: "mapping=gpu0" } }),
      );
      expect([error.code, error.context.aclPath, error.context.privilege]).toEqual([
        "FORBIDDEN",
        "/mapping/pci/gpu0",
        "Mapping.Use",
      ]);
    },
  );

  it("fails doctor --pool without Pool.Allocate on the pool, and PVE refuses the pool update naming it", async () => {
    const admin = new TestClient(sim);
    await admin.call("POST", "/pools", { poolid: "ci" });
    await admin.close();
    // The printed role without --pool: everything but the pool.
    const token = grantRole(`nopool${major}@pve!tok`);
    const report = await doctor({ connection: connect(token), template: "9000", pools: ["ci"] });
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual([
      "Pool.Allocate on /pool/ci",
    ]);
    const vmid = await clonedAndStarted(
      new HttpProxmoxApi({ connection: connect(sim.apiToken), timeoutMs: 5_000 }),
    );
    const api = new HttpProxmoxApi({ connection: connect(token), timeoutMs: 5_000 });
    const error = await refusal(api.updatePoolMembership({ poolid: "ci", vmid, remove: false }));
    expect([error.code, error.context.aclPath, error.context.privilege]).toEqual([
      "FORBIDDEN",
      "/pool/ci",
      "Pool.Allocate",
    ]);
    const granted = sim.addToken(`pool${major}@pve!tok`, [
      { path: "/vms", privileges },
      { path: "/pool/ci", privileges: ["Pool.Allocate"] },
    ]);
    const allowed = new HttpProxmoxApi({ connection: connect(granted), timeoutMs: 5_000 });
    await allowed.updatePoolMembership({ poolid: "ci", vmid, remove: false });
    expect((await allowed.clusterVms()).find((vm) => vm.vmid === vmid)?.pool).toBe("ci");
  });

  it(
    major >= 8
      ? "fails doctor without SDN.Use on the bridge, and PVE refuses the clone naming it"
      : "asks for no SDN.Use before 8, and PVE clones onto the bridge without it",
    async () => {
      expect(needs.some((n) => n.privilege === "SDN.Use")).toBe(major >= 8);
      const token = sim.addToken(`nosdn${major}@pve!tok`, [
        { path: "/", privileges: privileges.filter((p) => p !== "SDN.Use") },
      ]);
      const report = await doctor({ connection: connect(token), template: "9000" });
      const api = new HttpProxmoxApi({ connection: connect(token), timeoutMs: 5_000 });
      const clone = api.cloneVm({ node: "pve1", vmid: 9000, newid: 299, name: "sdn", full: false });
      if (major >= 8) {
        expect(report.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual([
          "SDN.Use on /sdn/zones/localnetwork/vmbr0",
        ]);
        const error = await refusal(clone);
        expect([error.code, error.context.aclPath, error.context.privilege]).toEqual([
          "FORBIDDEN",
          "/sdn/zones/localnetwork/vmbr0",
          "SDN.Use",
        ]);
        expect(sim.model.vms.has(299)).toBe(false);
      } else {
        expect(report.exitCode).toBe(0);
        await waitForTask(api, "pve1", await clone, { budgetMs: 10_000 });
        expect(sim.model.vms.get(299)?.config["name"]).toBe("sdn");
      }
    },
  );
});

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
