import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeSharedDispatchers } from "../../../../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import { retryingApi } from "../../../../provider/pve/api/retrying-api.js";
import { waitForTask } from "../../../../provider/pve/tasks/task-wait.js";
import { parseConnectionConfig, type ConnectionConfig } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { PVE_VERSIONS, startSimulator, VERSION_PROFILES } from "../../../../simulator/index.js";
import { expectNoSecret } from "./no-secret.js";

/** The real client, over real HTTPS, against the simulator: every error path and fault. */

type Sim = Awaited<ReturnType<typeof startSimulator>>;
let sim: Sim;
let connection: ConnectionConfig;
let api: HttpProxmoxApi;
let secret: string;
const TEMPLATE = 9000;

beforeAll(async () => {
  sim = await startSimulator({ defaultTaskMs: 50 });
  secret = sim.apiToken.slice(sim.apiToken.lastIndexOf("=") + 1);
  connection = parseConnectionConfig(
    { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
    { env: {} },
  );
  api = new HttpProxmoxApi({ connection, timeoutMs: 5_000 });
});

afterEach(() => {
  sim.faults.clear();
});

afterAll(async () => {
  await closeSharedDispatchers();
  await sim.close();
});

async function failure(promise: Promise<unknown>): Promise<ProxmoxError> {
  try {
    await promise;
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

async function cloneAndWait(newid: number): Promise<void> {
  const upid = await api.cloneVm({
    node: "pve1",
    vmid: TEMPLATE,
    newid,
    name: `t-${newid}`,
    full: false,
  });
  await waitForTask(api, "pve1", upid, { budgetMs: 10_000 });
}

describe("http-api against the simulator", () => {
  it("verifies TLS against the simulator's CA and reads the version", async () => {
    const version = await api.version();
    expect(version.version).toMatch(/^\d+\.\d+/);
  });

  it("rejects the simulator's certificate without the CA as a permanent NETWORK error", async () => {
    const untrusted = new HttpProxmoxApi({ connection: { ...connection, caCert: undefined } });
    const error = await failure(untrusted.version());
    expect(error).toMatchObject({ code: "NETWORK", transient: false });
    expect(error.message).toContain("is not trusted");
    expect(error.message).toContain("`proxmox:caCert`");
    expect(error.message).toContain("`proxmox:insecure` true (or PROXMOX_VE_INSECURE=true)");
    expectNoSecret(error, secret);
  });

  it("connects with insecure and logs the warning once per pool", async () => {
    const warn = vi.fn();
    const insecure = { ...connection, caCert: undefined, insecure: true };
    await new HttpProxmoxApi({ connection: insecure, logger: { warn } }).version();
    await new HttpProxmoxApi({ connection: insecure, logger: { warn } }).version();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain(
      `TLS verification is DISABLED for ${connection.origin}`,
    );
  });

  it("clones, configures, starts, reads, stops and destroys a VM", async () => {
    const vmid = await api.nextVmid();
    await cloneAndWait(vmid);
    const update = await api.updateVmConfig("pve1", vmid, {
      set: { cores: 4, onboot: true },
      delete: ["serial0"],
    });
    if (update !== null) await waitForTask(api, "pve1", update, { budgetMs: 10_000 });
    const config = await api.vmConfig("pve1", vmid);
    expect(config).toMatchObject({ cores: 4, name: `t-${vmid}` });
    expect(config["serial0"]).toBeUndefined();
    await waitForTask(api, "pve1", await api.startVm("pve1", vmid), { budgetMs: 10_000 });
    expect((await api.vmStatus("pve1", vmid)).status).toBe("running");
    await waitForTask(api, "pve1", await api.stopVm("pve1", vmid), { budgetMs: 10_000 });
    await waitForTask(api, "pve1", await api.destroyVm("pve1", vmid), { budgetMs: 10_000 });
    const gone = await failure(api.vmConfig("pve1", vmid));
    expect(gone).toMatchObject({ code: "NOT_FOUND", context: { node: "pve1", vmid, status: 500 } });
  });

  it("uploads an ISO, lists it and deletes it", async () => {
    const bytes = new Uint8Array(100_000).fill(1);
    const upid = await api.uploadIso("pve1", "local", { filename: "pp-test.iso", bytes });
    await waitForTask(api, "pve1", upid, { budgetMs: 10_000 });
    const volumes = await api.storageContent("pve1", "local", "iso");
    expect(volumes.find((v) => v.volid === "local:iso/pp-test.iso")?.size).toBe(100_000);
    const deletion = await api.deleteVolume("pve1", "local", "local:iso/pp-test.iso");
    if (deletion !== null) await waitForTask(api, "pve1", deletion, { budgetMs: 10_000 });
    expect(
      (await api.storageContent("pve1", "local", "iso")).some(
        (v) => v.volid === "local:iso/pp-test.iso",
      ),
    ).toBe(false);
  });

  it("reports a missing clone source as NOT_FOUND", async () => {
    const error = await failure(
      api.cloneVm({ node: "pve1", vmid: 4242, newid: 4243, name: "x", full: true }),
    );
    expect(error).toMatchObject({ code: "NOT_FOUND", context: { vmid: 4242, node: "pve1" } });
    expectNoSecret(error, secret);
  });

  it("reports a taken newid as ALREADY_EXISTS", async () => {
    const error = await failure(
      api.cloneVm({ node: "pve1", vmid: TEMPLATE, newid: TEMPLATE, name: "x", full: true }),
    );
    expect(error).toMatchObject({ code: "ALREADY_EXISTS", transient: false });
  });

  it("reports a VM locked by a backup as LOCKED, synchronously or in the task", async () => {
    const vmid = await api.nextVmid();
    await cloneAndWait(vmid);
    sim.faults.setLock(vmid, "backup");
    // clone_vm checks the source's lock before forking: a synchronous 500.
    const sync = await failure(
      api.cloneVm({ node: "pve1", vmid, newid: vmid + 1, name: "x", full: true }),
    );
    expect(sync).toMatchObject({
      code: "LOCKED",
      transient: true,
      context: { lock: "backup", vmid },
    });
    expectNoSecret(sync, secret);
    // POST config checks it inside its worker: a task error classified as LOCKED.
    const upid = await api.updateVmConfig("pve1", vmid, { set: { cores: 2 } });
    expect(upid).not.toBeNull();
    const task = await failure(waitForTask(api, "pve1", upid ?? "", { budgetMs: 10_000 }));
    expect(task).toMatchObject({ code: "TASK_FAILED", context: { taskErrorCode: "LOCKED", vmid } });
    sim.faults.setLock(vmid, null);
  });

  it("reports a held file lock as a task failing with LOCK_TIMEOUT", async () => {
    const vmid = await api.nextVmid();
    await cloneAndWait(vmid);
    const held = sim.faults.holdFileLock(vmid, 2_000);
    const upid = await api.cloneVm({ node: "pve1", vmid, newid: vmid + 1, name: "x", full: true });
    const error = await failure(waitForTask(api, "pve1", upid, { budgetMs: 10_000 }));
    expect(error).toMatchObject({
      code: "TASK_FAILED",
      context: { taskErrorCode: "LOCK_TIMEOUT" },
    });
    expect(error.context.pveMessage).toContain(
      `can't lock file '/var/lock/qemu-server/lock-${vmid}.conf' - got timeout`,
    );
    await held;
  });

  it("reports a bad token as AUTH without the secret", async () => {
    const bad = new HttpProxmoxApi({
      connection: parseConnectionConfig(
        { endpoint: sim.url, apiToken: "root@pam!ci=wrong-secret-value", caCert: sim.caCertPem },
        { env: {} },
      ),
    });
    const error = await failure(bad.version());
    expect(error).toMatchObject({ code: "AUTH", transient: false, context: { status: 401 } });
    expect(error.message).toContain("Check the API token root@pam!ci:");
    expectNoSecret(error, "wrong-secret-value");
  });

  it("reports a missing privilege as FORBIDDEN with the privilege and ACL path", async () => {
    const token = sim.addToken("audit@pve!ro", [{ path: "/", privileges: ["VM.Audit"] }]);
    const readOnly = new HttpProxmoxApi({
      connection: parseConnectionConfig(
        { endpoint: sim.url, apiToken: token, caCert: sim.caCertPem },
        { env: {} },
      ),
    });
    const error = await failure(
      readOnly.cloneVm({ node: "pve1", vmid: TEMPLATE, newid: 7777, name: "x", full: true }),
    );
    expect(error).toMatchObject({
      code: "FORBIDDEN",
      context: { aclPath: `/vms/${TEMPLATE}`, privilege: "VM.Clone" },
    });
    expectNoSecret(error, token.slice(token.lastIndexOf("=") + 1));
  });

  it("reports invalid parameters as INVALID_PARAM with the errors map", async () => {
    const error = await failure(
      api.cloneVm({
        node: "pve1",
        vmid: TEMPLATE,
        newid: 7778,
        name: "not a dns name!",
        full: true,
      }),
    );
    expect(error.code).toBe("INVALID_PARAM");
    expect(Object.keys(error.context.paramErrors ?? {})).toEqual(["name"]);
  });

  it.each([
    [595, "node-down"],
    [596, "proxy-timeout"],
  ] as const)("reports a %i from a down node as UNAVAILABLE %s", async (status, kind) => {
    sim.faults.nodeDown("pve2", status);
    const error = await failure(api.vmStatus("pve2", 9001));
    expect(error).toMatchObject({
      code: "UNAVAILABLE",
      transient: true,
      context: { unavailable: kind, node: "pve2" },
    });
    sim.faults.nodeUp("pve2");
  });

  it("reports an injected 500 as a permanent SERVER error and a 503 as transient", async () => {
    sim.faults.failRequests({ method: "GET", path: "^/nodes$" }, 500, "something broke");
    expect(await failure(api.nodes())).toMatchObject({ code: "SERVER", transient: false });
    sim.faults.failRequests({ method: "GET", path: "^/nodes$" }, 503, "Service Unavailable");
    expect(await failure(api.nodes())).toMatchObject({ code: "UNAVAILABLE", transient: true });
  });

  it("reports a dropped connection as NETWORK and a slow answer as TIMEOUT", async () => {
    sim.faults.dropRequests({ method: "GET", path: "^/version$" });
    const dropped = await failure(api.version());
    expect(dropped).toMatchObject({ code: "NETWORK", transient: true });
    expectNoSecret(dropped, secret);
    sim.faults.delayRequests({ method: "GET", path: "^/version$" }, 1_000);
    const slow = await failure(new HttpProxmoxApi({ connection, timeoutMs: 200 }).version());
    expect(slow).toMatchObject({ code: "TIMEOUT", transient: true });
    expectNoSecret(slow, secret);
  });

  it("retries a transient failure through the retrying decorator and succeeds", async () => {
    sim.faults.failRequests(
      { method: "GET", path: "^/cluster/nextid$", count: 2 },
      596,
      "Connection timed out",
    );
    const lines: string[] = [];
    const retrying = retryingApi(api, { progress: (l) => lines.push(l), initialDelayMs: 20 });
    const vmid = await retrying.nextVmid();
    expect(vmid).toBeGreaterThanOrEqual(100);
    expect(lines).toHaveLength(2);
  });

  it("surfaces a failed task as TASK_FAILED with the log tail", async () => {
    const vmid = await api.nextVmid();
    sim.faults.failTasks({ type: "qmclone" }, "clone failed: out of space");
    const upid = await api.cloneVm({
      node: "pve1",
      vmid: TEMPLATE,
      newid: vmid,
      name: "x",
      full: true,
    });
    const error = await failure(waitForTask(api, "pve1", upid, { budgetMs: 10_000 }));
    expect(error).toMatchObject({
      code: "TASK_FAILED",
      context: { upid, pveMessage: "clone failed: out of space" },
    });
    expect(error.context.taskLogTail?.at(-1)).toBe("TASK ERROR: clone failed: out of space");
  });

  it("returns a WARNINGS task as success with its warnings", async () => {
    const vmid = await api.nextVmid();
    sim.faults.warnTasks({ type: "qmclone" }, 1);
    const upid = await api.cloneVm({
      node: "pve1",
      vmid: TEMPLATE,
      newid: vmid,
      name: `w-${vmid}`,
      full: true,
    });
    const warn = vi.fn();
    const result = await waitForTask(api, "pve1", upid, { budgetMs: 10_000, logger: { warn } });
    expect(result.exitstatus).toBe("WARNINGS: 1");
    expect(result.warnings.length).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("reads agent interfaces once the guest is up, UNAVAILABLE before", async () => {
    const vmid = await api.nextVmid();
    await cloneAndWait(vmid);
    await waitForTask(api, "pve1", await api.startVm("pve1", vmid), { budgetMs: 10_000 });
    const early = await failure(api.agentInterfaces("pve1", vmid));
    expect(early).toMatchObject({
      code: "UNAVAILABLE",
      context: { unavailable: "agent-not-running" },
    });
    // The agent comes up with the guest: poll as observe.ts does.
    let nics: Awaited<ReturnType<typeof api.agentInterfaces>> | undefined;
    for (let attempt = 0; nics === undefined && attempt < 100; attempt++) {
      nics = await api.agentInterfaces("pve1", vmid).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      });
    }
    if (nics === undefined) throw new Error("the guest agent never answered");
    expect(nics.some((nic) => nic.ipAddresses.some((ip) => ip.type === "ipv4"))).toBe(true);
  });
});

describe.each(PVE_VERSIONS)("http-api against the PVE %s profile", (pveVersion) => {
  const profile = VERSION_PROFILES[pveVersion];
  let versioned: Sim;
  let client: HttpProxmoxApi;
  beforeAll(async () => {
    versioned = await startSimulator({ defaultTaskMs: 20, pveVersion });
    client = new HttpProxmoxApi({
      connection: parseConnectionConfig(
        { endpoint: versioned.url, apiToken: versioned.apiToken, caCert: versioned.caCertPem },
        { env: {} },
      ),
      timeoutMs: 5_000,
    });
  });
  afterAll(async () => {
    await versioned.close();
  });

  it(`grows a disk ${profile.resizeIsTask ? "in a resize task" : "at once, answered with null"}`, async () => {
    const clone = await client.cloneVm({
      node: "pve1",
      vmid: TEMPLATE,
      newid: 400,
      name: "r",
      full: false,
    });
    await waitForTask(client, "pve1", clone, { budgetMs: 10_000 });
    const upid = await client.resizeDisk("pve1", 400, "scsi0", "6G");
    if (profile.resizeIsTask) {
      expect(upid).toMatch(/:resize:400:/);
      await waitForTask(client, "pve1", upid ?? "", { budgetMs: 10_000 });
    } else {
      expect(upid).toBeNull();
    }
    expect(String((await client.vmConfig("pve1", 400))["scsi0"])).toContain("size=6G");
  });

  it("classifies a missing VM by PVE's text, whether the body carries it or only the reason phrase", async () => {
    const error = await failure(client.vmConfig("pve1", 999));
    expect([error.code, error.context.pveMessage]).toEqual([
      "NOT_FOUND",
      "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist",
    ]);
    expect(error.message).toContain("VM 999 on pve1 does not exist");
  });

  it("reads the release's version and the guest agent with its privileges", async () => {
    expect(await client.version()).toMatchObject({ release: pveVersion });
    const clone = await client.cloneVm({
      node: "pve1",
      vmid: TEMPLATE,
      newid: 401,
      name: "a",
      full: false,
    });
    await waitForTask(client, "pve1", clone, { budgetMs: 10_000 });
    await waitForTask(client, "pve1", await client.startVm("pve1", 401), { budgetMs: 10_000 });
    await vi.waitFor(
      async () => expect((await client.agentInterfaces("pve1", 401)).length).toBe(2),
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    const status = await client.vmStatus("pve1", 401);
    expect(status.status).toBe("running");
  });
});
