import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PVE_VERSION } from "../../simulator/model/versions";
import { startSimulator, VERSION_PROFILES, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { leftoverProcesses } from "../e2e/support/processes";
import { guestVms, proxmoxStack, seedIsos } from "../e2e/support/proxmox-stack";
import { runBin } from "./support";
import { expectFailure, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
const web = new ProxmoxVm("web", { node: "pve1", template: 9000, cores: 2, memory: 1024 });
exports.vmid = web.vmid;
`;

/** What a finished destroy leaves: no guest VM, no seed ISO, no lock on the VM, no process. */
function expectNothingLeft(sim: Simulator, vmid: number, engine: EngineEnv): void {
  expect(guestVms(sim)).toEqual([]);
  expect(seedIsos(sim)).toEqual([]);
  expect(sim.model.isFileLocked(vmid)).toBe(false);
  expect(leftoverProcesses(engine.marker)).toEqual([]);
}

/** A TCP relay to `target`'s port on loopback: another address of the same API, counting connections. */
async function relayTo(
  target: string,
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const port = Number(new URL(target).port);
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections += 1;
    const upstream = net.connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => socket.destroy());
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `https://127.0.0.1:${own}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe("after the CA file moves and proxmox:caCert follows it", () => {
  const { sim, engine, dir } = useStack({ name: "cli-current-config", program });
  let oldCa: string;
  let vmid: number;
  let currentCa: string | undefined;
  /** Moves the CA file into the program's folder `to` and points proxmox:caCert at it. */
  const moveCa = async (to: string) => {
    const from = currentCa ?? oldCa;
    currentCa = path.join(dir, to, "ca.pem");
    fs.mkdirSync(path.dirname(currentCa));
    fs.renameSync(from, currentCa);
    const set = await pulumi(["config", "set", "proxmox:caCert", currentCa], dir, engine.env);
    expectSuccess(set);
  };
  beforeAll(async () => {
    oldCa = path.join(dir, "ca.pem"); // where proxmoxStack wrote the CA and pointed caCert
    const up = await runBin(["up", "--stack", "dev"], dir, engine.env);
    expectSuccess(up);
    [vmid] = guestVms(sim) as [number];
    await moveCa("moved");
  });

  it("plain pulumi refresh and destroy still read the CA path of the last up, and delete nothing", async () => {
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(refresh);
    expect(refresh.stdout + refresh.stderr).toContain(
      `caCert file ${oldCa} cannot be read (ENOENT)`,
    );
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(destroy);
    expect(destroy.stdout + destroy.stderr).toContain(
      `caCert file ${oldCa} cannot be read (ENOENT)`,
    );
    expect(guestVms(sim)).toEqual([vmid]);
    expect(sim.model.isFileLocked(vmid)).toBe(false);
    expect(leftoverProcesses(engine.marker)).toEqual([]);
  });

  it("pulumi-proxmox drift refreshes with the current CA path and finds the stack clean", async () => {
    const drift = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expectSuccess(drift);
    expect(drift.stdout).toContain("No drift in stack dev.");
  });

  it("pulumi-proxmox up --refresh refreshes with the current CA path and changes nothing", async () => {
    const up = await runBin(["up", "--stack", "dev", "--refresh"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).not.toContain("cannot be read");
    expect(guestVms(sim)).toEqual([vmid]);
    // This up recorded the moved path: move the file again, so destroy has the old-path case too.
    await moveCa("moved-again");
  });

  it("pulumi-proxmox destroy uses the current CA path and leaves no VM, seed, lock or process", async () => {
    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expectNothingLeft(sim, vmid, engine);
  });
});

describe("after proxmox:endpoint changes to another address of the same cluster", () => {
  const { sim, engine, dir } = useStack({ name: "cli-current-endpoint", program });
  let old: Awaited<ReturnType<typeof relayTo>>;
  let vmid: number;
  beforeAll(async () => {
    old = await relayTo(sim.url);
    const set = (value: string) =>
      pulumi(["config", "set", "proxmox:endpoint", value], dir, engine.env);
    expect((await set(old.url)).code).toBe(0);
    const up = await runBin(["up", "--stack", "dev"], dir, engine.env);
    expectSuccess(up);
    [vmid] = guestVms(sim) as [number];
    expect(old.connections()).toBeGreaterThan(0);
    expect((await set(sim.url)).code).toBe(0);
  });
  afterAll(() => old.close());

  it("plain pulumi refresh still calls the old address", async () => {
    const before = old.connections();
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(refresh);
    expect(old.connections()).toBeGreaterThan(before);
  });

  it("pulumi-proxmox destroy calls only the new address and leaves no VM, seed, lock or process", async () => {
    const before = old.connections();
    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expect(old.connections()).toBe(before);
    expectNothingLeft(sim, vmid, engine);
  });
});

describe("after the token is rotated in the stack config", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  let vmid: number;
  /** The token ids the requests served since `from` (a log length) authenticated with. */
  const tokensSince = (from: number) =>
    [...new Set(sim.requestLog.slice(from).map((entry) => entry.tokenId))].sort();
  beforeAll(async () => {
    sim = await startSimulator();
    engine = engineEnv();
    dir = await proxmoxStack("cli-current-token", program, sim, engine);
    const up = await runBin(["up", "--stack", "dev"], dir, engine.env);
    expectSuccess(up);
    [vmid] = guestVms(sim) as [number];
    const privileges = VERSION_PROFILES[DEFAULT_PVE_VERSION].privileges;
    const rotated = sim.addToken("root@pam!rotated", [{ path: "/", privileges }]);
    const set = await pulumi(
      ["config", "set", "--secret", "proxmox:apiToken", rotated],
      dir,
      engine.env,
    );
    expectSuccess(set);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("plain pulumi refresh still sends the token of the last up", async () => {
    const from = sim.requestLog.length;
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(refresh);
    expect(tokensSince(from)).toEqual(["root@pam!ci"]);
  });

  it("plain pulumi refresh fails with a 401 naming the old token once it is deleted", async () => {
    expect(sim.removeToken("root@pam!ci")).toBe(true);
    const refresh = await pulumi(["refresh", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(refresh);
    const output = refresh.stdout + refresh.stderr;
    expect(output).toMatch(/not authenticated \(401/);
    expect(output).toContain("root@pam!ci");
    expect(sim.model.vms.has(vmid)).toBe(true);
  });

  it("pulumi-proxmox destroy sends only the rotated token and leaves no VM, seed, lock or process", async () => {
    const from = sim.requestLog.length;
    const destroy = await runBin(["destroy", "--stack", "dev"], dir, engine.env);
    expectSuccess(destroy);
    expect(tokensSince(from)).toEqual(["root@pam!rotated"]);
    expectNothingLeft(sim, vmid, engine);
  });
});
