import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../cli";
import { doctor } from "../../cli/doctor";
import { parseConnectionConfig } from "../../provider/pve/config";
import { startSimulator, type Simulator } from "../../simulator";
import { versionProfile } from "../../simulator/model/versions";
import { grantable, needsOn } from "./doctor-support";

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
