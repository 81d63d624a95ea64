/**
 * An independent check of the simulator's shapes: a program written against a public PVE client
 * library (proxmox-api from the npm registry) makes its usual first calls — node handle, cluster
 * status, storage handle, ISO lookup, clone and task wait, agent wait, task lists — and none
 * answers 501. The library logs in with a password (ticket + CSRF) or uses an API token.
 */
import proxmoxApi, { type ProxmoxEngineOptions } from "proxmox-api";
import { Agent, fetch } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../simulator/index.js";
import { startWithClient, type TestClient } from "./support/client.js";
import { uploadFile } from "./support/upload.js";

let sim: Simulator;
let api: TestClient;
let agent: Agent;

beforeEach(async () => {
  ({ sim, api } = await startWithClient({ guestBootMs: 50 }));
  agent = new Agent({ connect: { ca: sim.caCertPem } });
});
afterEach(async () => {
  await agent.close();
  await api.close();
  await sim.close();
});

/** The library's connection options, with fetch pinned to the simulator's CA. */
function connection(auth: Record<string, string>): ProxmoxEngineOptions {
  const url = new URL(sim.url);
  const pinned = (input: string | URL, init?: object) =>
    fetch(input, { ...(init ?? {}), dispatcher: agent });
  return {
    host: url.hostname,
    port: Number(url.port),
    schema: "https",
    ...auth,
    fetch: pinned as unknown as NonNullable<ProxmoxEngineOptions["fetch"]>,
  } as ProxmoxEngineOptions;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What client programs do to wait for a task: poll its status until it stops. */
async function waitTask(pve: ReturnType<typeof proxmoxApi>, node: string, upid: string) {
  for (;;) {
    const status = await pve.nodes.$(node).tasks.$(upid).status.$get();
    if (status.status === "stopped") return status;
    await sleep(20);
  }
}

describe("an independent client (proxmox-api)", () => {
  it("logs in with a password and makes a typical program's calls without a 501", async () => {
    const pve = proxmoxApi(connection({ username: "root@pam", password: sim.rootPassword }));
    const up = await uploadFile(sim, "pve1", "local", "seed.iso", Buffer.alloc(4096, 7));
    await api.waitTask("pve1", String(up.body?.["data"]));

    // Node handle, cluster and version.
    const nodes = await pve.nodes.$get();
    expect(nodes.map((n) => n.node)).toEqual(["pve1", "pve2"]);
    const node = pve.nodes.$("pve1");
    const status = await node.status.$get();
    expect(status.cpuinfo.cpus).toBe(nodes[0]?.maxcpu);
    expect((await pve.cluster.status.$get()).some((row) => row.type === "cluster")).toBe(true);
    expect((await pve.version.$get()).release).toBe("8.4");

    // Storage handle and ISO lookup.
    const local = node.storage.$("local");
    expect((await local.status.$get()).active).toBe(1);
    const isos = await local.content.$get({ content: "iso" });
    expect(isos.map((v) => v.volid)).toEqual(["local:iso/seed.iso"]);
    expect((await local.content.$("local:iso/seed.iso").$get()).size).toBe(4096);

    // Clone, wait for the task, start, wait for the agent, read the guest.
    const upid = await node.qemu.$(9000).clone.$post({ newid: 100, name: "web" });
    expect((await waitTask(pve, "pve1", upid)).exitstatus).toBe("OK");
    const vm = node.qemu.$(100);
    await waitTask(pve, "pve1", await vm.status.start.$post());
    let pinged = false;
    for (let i = 0; i < 250 && !pinged; i += 1) {
      pinged = await vm.agent.ping.$post().then(
        () => true,
        () => false,
      );
      if (!pinged) await sleep(20);
    }
    expect(pinged).toBe(true);
    const osinfo = await vm.agent["get-osinfo"].$get();
    expect(osinfo.result?.id).toBe("debian");
    const nics = await vm.agent["network-get-interfaces"].$get();
    expect(nics.result?.map((nic: { name?: string }) => nic.name)).toEqual(["lo", "eth0"]);

    // Task lists.
    const tasks = await node.tasks.$get({ vmid: 100 });
    expect(tasks.map((t) => t.type)).toEqual(["qmstart"]);
    const clusterTasks = await pve.cluster.tasks.$get();
    expect(clusterTasks.map((t) => t.type)).toEqual(expect.arrayContaining(["qmclone", "qmstart"]));

    // A write with the ticket: a pool, joined by the VM.
    await pve.pools.$post({ poolid: "ci" });
    await pve.pools.$("ci").$put({ vms: "100" });
    expect((await pve.pools.$("ci").$get()).members.map((m) => m.id)).toEqual(["qemu/100"]);

    expect(sim.requestLog.filter((entry) => entry.status === 501)).toEqual([]);
    expect(sim.requestLog.filter((e) => e.path === "/access/ticket")).toHaveLength(1);
  });

  it("uses an API token the same way", async () => {
    const [tokenID = "", tokenSecret = ""] = sim.apiToken.split("=");
    const pve = proxmoxApi(connection({ tokenID, tokenSecret }));
    expect((await pve.nodes.$("pve2").status.$get()).pveversion).toMatch(/^pve-manager\/8\.4/);
    expect(await pve.access.users.$get()).toEqual([
      expect.objectContaining({ userid: "root@pam" }),
    ]);
    expect(sim.requestLog.some((e) => e.status === 501 || e.status === 401)).toBe(false);
  });

  it("reports a wrong password as a failed login, not as a missing route", async () => {
    const pve = proxmoxApi(connection({ username: "root@pam", password: "wrong" }));
    const failure = (await pve.nodes.$get().then(
      () => undefined,
      (err: unknown) => err,
    )) as Error & { cause?: Error };
    expect(failure.message).toMatch(/^Auth .*\/access\/ticket Failed!$/);
    expect(failure.cause?.message).toMatch(/^login failed with 401: authentication failure /);
    expect(sim.requestLog.map((e) => [e.path, e.status])).toEqual([["/access/ticket", 401]]);
  });
});
