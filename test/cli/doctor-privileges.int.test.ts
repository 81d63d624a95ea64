import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doctor } from "../../cli/doctor";
import { roleCommands } from "../../cli/doctor-privileges";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
import { HttpProxmoxApi } from "../../provider/pve/api/http-api";
import { waitForTask } from "../../provider/pve/tasks/task-wait";
import type { ProxmoxError } from "../../provider/pve/errors";
import { TestClient } from "../simulator/support/client";
import { parseConnectionConfig } from "../../provider/pve/config";
import { PVE_VERSIONS, startSimulator, VERSION_PROFILES, type Simulator } from "../../simulator";
import { grantable, needsOn } from "./doctor-support";

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
