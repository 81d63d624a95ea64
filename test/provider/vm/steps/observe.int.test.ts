import { afterEach, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { readVm } from "../../../../provider/vm/operations/read";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";

const resolve = (extra: Record<string, unknown> = {}) =>
  checkVm(
    {},
    {
      identity: { project: "int", stack: "test", name: "docker-host" },
      node: "pve1",
      template: 9000,
      ...extra,
    },
  ).inputs as ResolvedInputs;

let sim: Simulator | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await sim?.close();
});

async function contextFor(options: SimulatorOptions): Promise<OperationContext> {
  sim = await startSimulator({ guestBootMs: 20, ...options });
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  return buildContext({ get: (key) => config[key] });
}

describe("observe against a guest that lists bridges and link-local addresses", () => {
  it("reports only the VM's own NIC and waits for its lease, not docker0's address", async () => {
    const ctx = await contextFor({ guest: { dockerBridge: true, apipa: true } });
    const progress = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const created = await createVm(ctx, resolve());
    expect(created.ipv4Addresses).toEqual(["10.10.0.100"]);
    expect(created.ipv6Addresses).toEqual([]);
    expect(progress.mock.calls.map(([line]) => String(line))).toContainEqual(
      expect.stringMatching(/guest agent reports 10\.10\.0\.100 after/),
    );
    expect((await readVm(ctx, created))?.ipv4Addresses).toEqual(["10.10.0.100"]);
  });

  it("keeps waiting while only docker0 and APIPA have IPv4 addresses, and says so on timeout", async () => {
    // No pool on vmbr0: eth0 never gets a lease.
    // vmbr0 exists on the node but has no DHCP pool: the guest never gets a lease.
    const ctx = await contextFor({
      guest: { dockerBridge: true, apipa: true },
      bridges: {},
      nodes: [{ name: "pve1", bridges: ["vmbr0"] }],
    });
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const failed = await createVm(ctx, resolve({ timeouts: { agentMs: 1500 } })).catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({
      cause: expect.objectContaining({
        code: "TIMEOUT",
        message: expect.stringContaining("reported no IPv4 address on the VM's NIC"),
      }),
    });
  });
});
