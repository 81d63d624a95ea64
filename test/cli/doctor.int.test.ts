import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli";
import { doctor } from "../../cli/doctor";
import { requirements } from "../../cli/doctor-privileges";
import { parseConnectionConfig } from "../../provider/config";
import { startSimulator, type Simulator } from "../../simulator";

const ROLE =
  'pveum role add PulumiProxmox -privs "Datastore.Allocate Datastore.AllocateSpace ' +
  "Datastore.AllocateTemplate Datastore.Audit SDN.Use Sys.Audit VM.Allocate VM.Audit VM.Clone " +
  "VM.Config.CDROM VM.Config.CPU VM.Config.Disk VM.Config.Memory VM.Config.Network " +
  'VM.Config.Options VM.Monitor VM.PowerMgmt"';

/** What the provider needs against the default simulator: template 9000 on pve1. */
const NEEDS = requirements({
  templateVmid: 9000,
  diskStorages: ["shared"],
  isoStorage: "local",
  bridges: ["vmbr0"],
  nodes: ["pve1"],
  pveMajor: 8,
});
const PRIVILEGES = [...new Set(NEEDS.map((n) => n.privilege))].sort();

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

  it("passes every check with a full-privilege token and prints the minimal role", async () => {
    const result = await run(sim.apiToken, "--template", "9000");
    expect(result.stderr).toBe("");
    expect(failed(result.stdout)).toEqual([]);
    expect(result.stdout).toContain("token root@pam!ci");
    expect(result.stdout).toMatch(
      /ok\s+template 9000\s+VM 9000 debian-12-cloud on pve1 is a template/,
    );
    expect(result.stdout).toMatch(/ok\s+disk storage shared on pve1\s+nfs, accepts images, shared/);
    expect(result.stdout).toMatch(/ok\s+ISO storage local on pve1\s+dir, accepts iso/);
    expect(result.stdout).toMatch(/ok\s+node pve1\s+online/);
    expect(result.stdout).toMatch(/ok\s+clock skew\s+-?[0-2] s \(server Date header\)/);
    for (const need of NEEDS) {
      expect(result.stdout).toMatch(new RegExp(`ok\\s+${need.privilege} on ${need.path}\\s`));
    }
    expect(result.stdout).toContain(ROLE);
    expect(result.stdout).toContain(
      "pveum acl modify /vms -token 'root@pam!ci' -role PulumiProxmox",
    );
    expect(result.stdout).toContain("All checks passed.");
    expect(result.code).toBe(0);
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
      NEEDS.filter((n) => n.privilege === missing).map((n) => `${n.privilege} on ${n.path}`),
    );
    expect(result.stdout).toMatch(new RegExp(`FAIL\\s+${missing} on /\\S*\\s+missing: needed to`));
    expect(result.code).toBe(1);
  });

  it("passes with exactly the role granted on the printed paths", async () => {
    const paths = [
      "/vms",
      "/storage/shared",
      "/storage/local",
      "/sdn/zones/localnetwork/vmbr0",
      "/nodes/pve1",
    ];
    const token = sim.addToken(
      "ci@pve!least",
      paths.map((p) => ({ path: p, privileges: PRIVILEGES })),
    );
    const result = await run(token, "--template", "9000");
    expect(failed(result.stdout)).toEqual([]);
    for (const p of paths) {
      expect(result.stdout).toContain(
        `pveum acl modify ${p} -token 'ci@pve!least' -role PulumiProxmox`,
      );
    }
    expect(result.code).toBe(0);
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
