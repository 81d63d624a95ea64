import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startSimulator, type Simulator } from "../../../../simulator";
import type { OperationContext } from "../../../../provider/pve/context";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm } from "../../../../provider/vm/operations/create";
import { deleteVm } from "../../../../provider/vm/operations/delete";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { buildContext } from "../../../../provider/pve/connection";

/** The provider's context over HTTP: dropped writes that are safe to repeat are repeated. */

const inputs = checkVm(
  {},
  {
    identity: { project: "int", stack: "retrying", name: "vm" },
    node: "pve1",
    template: 9000,
    cores: 1,
    memory: 512,
  },
).inputs as ResolvedInputs;

describe("retryingApi (over HTTP, in the provider's context)", () => {
  let sim: Simulator;
  let ctx: OperationContext;
  beforeAll(async () => {
    sim = await startSimulator();
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    ctx = buildContext({ get: (key) => config[key] });
  });
  afterAll(() => sim.close());

  it("repeats a dropped start, stop and destroy, and leaves nothing behind", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    try {
      sim.faults.dropRequests({ method: "POST", path: "/status/start$" });
      const created = await createVm(ctx, inputs);
      expect(sim.model.vms.get(created.vmid)?.status).toBe("running");

      sim.faults.dropRequests({ method: "POST", path: "/status/stop$" });
      sim.faults.dropRequests({ method: "DELETE", path: `^/nodes/pve1/qemu/${created.vmid}$` });
      await deleteVm(ctx, created);
      expect(sim.model.vms.has(created.vmid)).toBe(false);
      expect(sim.model.volumes("pve1", "local")).toEqual([]);
      for (const request of ["POST start", "POST stop", "DELETE VM"]) {
        expect(lines).toContainEqual(
          expect.stringMatching(
            new RegExp(
              `^pulumi-proxmox: ${request} \\(node pve1, VM ${created.vmid}\\): connection failed \\(\\w+\\), retrying \\(attempt 2 of 6, in \\d\\.\\d s\\)$`,
            ),
          ),
        );
      }
    } finally {
      vi.restoreAllMocks();
    }
  });
});
