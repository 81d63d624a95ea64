import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runConformance, type ConformanceOptions } from "../../../simulator/conformance/run.js";
import { startSimulator, VERSION_PROFILES, type Simulator } from "../../../simulator/index.js";

/** A simulator standing in for the real cluster the recorder is pointed at. */
let cluster: Simulator;
const RANGE = { min: 4000, max: 4009 };

beforeEach(async () => {
  cluster = await startSimulator({
    port: 0,
    defaultTaskMs: 50,
    taskJitter: 0,
    guestBootMs: 200,
    listingLagMs: 0,
    authFailureDelayMs: 0,
  });
});
afterEach(async () => {
  await cluster.close();
});

const options = (extra: Partial<ConformanceOptions> = {}): ConformanceOptions => ({
  endpoint: cluster.url,
  login: { kind: "token", token: cluster.apiToken },
  caCert: cluster.caCertPem,
  node: "pve1",
  template: 9000,
  range: RANGE,
  taskTimeoutMs: 20_000,
  ...extra,
});

const vmsInRange = () =>
  [...cluster.model.vms.keys()].filter((id) => id >= RANGE.min && id <= RANGE.max);

async function run(extra: Partial<ConformanceOptions> = {}) {
  const lines: string[] = [];
  const result = await runConformance(options(extra), (line) => lines.push(line));
  return { ...result, lines };
}

describe("pve-sim conformance", () => {
  it("finds no differences between a simulator and another of the same release, and leaves no VM", async () => {
    const { exitCode, lines, report } = await run();
    expect(lines.at(-1)).toBe("no differences");
    expect(exitCode).toBe(0);
    expect(report.cluster.exchanges.map((e) => e.step)).toEqual(
      expect.arrayContaining([
        "clone",
        "config-key-forms",
        "config-rendered",
        "resize",
        "start",
        "agent-ping",
        "delete",
      ]),
    );
    expect(vmsInRange()).toEqual([]);
  });

  it("names an answer that differs from the simulator's", async () => {
    cluster.faults.failRequests(
      { method: "GET", path: /\/nodes\/pve1\/storage$/ },
      500,
      "storage listing broke",
    );
    const { exitCode, lines } = await run();
    expect(lines).toContain("  storages: status 500 on PVE, 200 on the simulator");
    expect(exitCode).toBe(1);
  });

  it("deletes its VM when the scenario fails midway, and says so", async () => {
    cluster.faults.failRequests({ method: "POST", path: /\/status\/start$/ }, 500, "start refused");
    const { exitCode, lines, report } = await run();
    expect(exitCode).toBe(2);
    expect(report.cluster.failure).toContain("start refused");
    expect(report.cluster.leftVm).toBe(false);
    expect(lines).toContain("nothing of the scenario is left on the cluster");
    expect(vmsInRange()).toEqual([]);
  });

  it("writes a report with no token, password, ticket or host in it", async () => {
    cluster.addUser("rec@pve", "s3cret-pass-phrase", [
      { path: "/", privileges: VERSION_PROFILES["8.4"].privileges },
    ]);
    const out = join(mkdtempSync(join(tmpdir(), "conformance-")), "report.json");
    await run({
      out,
      login: { kind: "password", username: "rec@pve", password: "s3cret-pass-phrase" },
    });
    const text = readFileSync(out, "utf8");
    expect(text).not.toContain("s3cret-pass-phrase");
    expect(text).not.toContain("127.0.0.1");
    expect(text).not.toMatch(/PVE:rec@pve:[0-9A-F]{8}::/);
    expect(text).toContain("<ticket>");
    expect(JSON.parse(text).cluster.exchanges.length).toBeGreaterThan(10);
  });
});
