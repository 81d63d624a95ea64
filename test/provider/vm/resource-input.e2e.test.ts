import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi } from "../../e2e/support/engine";
import { guestVms, proxmoxStack, seedIsos } from "../../e2e/support/proxmox-stack";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

const program = (network: string) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("solo", {
  node: "pve1",
  template: 9000,
  cores: 1,
  memory: 512,
  network: ${network},
});
exports.vmid = vm.vmid;
`;

describe("ProxmoxVm input checks, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;

  it("fails preview and up on a bad nameserver and IPv4 address, naming both, with no API request", async () => {
    sim = await startSimulator();
    const dir = await proxmoxStack(
      "bad-network",
      program('{ nameservers: ["not an ip!"], ipv4: { address: "999.1.1.1/24" } }'),
      sim,
      engine,
    );
    sim.clearRequestLog();

    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    // The property as written and the rule, without the engine's dump of the value.
    expect(preview.stdout).toContain(
      "ProxmoxVm resource 'solo' has a problem: network.nameservers[0]: must be an IP address (IPv4 or IPv6)",
    );
    expect(preview.stdout).toContain(
      "ProxmoxVm resource 'solo' has a problem: network.ipv4.address: must be an IPv4 address with a prefix length, e.g. 10.0.0.5/24",
    );
    expect(preview.stdout).not.toMatch(/value \{/);
    expect(sim.requestLog).toEqual([]);

    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(up);
    expect(up.stdout).toContain("network.nameservers[0]");
    expect(sim.requestLog).toEqual([]);
    expect(guestVms(sim)).toEqual([]);

    fs.writeFileSync(
      path.join(dir, "index.js"),
      program('{ nameservers: ["10.10.0.1"], ipv4: { address: "10.10.0.50/24" } }'),
    );
    const fixed = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(fixed);
    expect(guestVms(sim)).toHaveLength(1);

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });

  it("fails preview and up on a NIC whose bridge the node lacks, before any clone", async () => {
    sim = await startSimulator();
    const dir = await proxmoxStack(
      "unknown-bridge",
      program("undefined").replace(
        "network: undefined,",
        'networks: [{ bridge: "vmbr0" }, { bridge: "vmbr9" }],',
      ),
      sim,
      engine,
    );
    sim.clearRequestLog();
    const problem =
      "ProxmoxVm resource 'solo' has a problem: networks[1].bridge: bridge vmbr9 is not on " +
      "node pve1, or the API token may not use it (bridges it can use there: vmbr0).";

    const preview = await pulumi(["preview"], dir, engine.env);
    expectFailure(preview);
    expect(preview.stdout).toContain(problem);
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(up);
    expect(up.stdout).toContain(problem);

    // Only the lookups: no clone, no write of any kind, no VM.
    expect(sim.requestLog.filter((r) => r.method !== "GET")).toEqual([]);
    expect(new Set(sim.requestLog.map((r) => r.path))).toEqual(new Set(["/nodes/pve1/network"]));
    expect(guestVms(sim)).toEqual([]);
  });
});
