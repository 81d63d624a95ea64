import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sweep } from "../../cli/sweep";
import { HttpProxmoxApi } from "../../provider/pve/api/http-api";
import { waitForTask } from "../../provider/pve/tasks/task-wait";
import { parseConnectionConfig, type ConnectionConfig } from "../../provider/pve/config";
import { checkVm } from "../../provider/vm/operations/check";
import { createVm } from "../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../provider/vm/steps/resolved-inputs";
import { buildVmSeed } from "../../provider/vm/steps/vm-seed";
import { buildContext } from "../../provider/pve/connection";
import type { VmState } from "../../provider/vm/state/vm-state";
import { VM_TYPE } from "../../provider/entry";
import { startSimulator, type Simulator } from "../../simulator";

const inputs = checkVm(
  {},
  { identity: { project: "int", stack: "sweep", name: "web" }, node: "pve1", template: 9000 },
).inputs as ResolvedInputs;

describe("sweep of seeds whose identity a state owns", () => {
  let sim: Simulator;
  let connection: ConnectionConfig;
  let api: HttpProxmoxApi;
  let vm: VmState;
  let stale: string;
  let dir: string;

  /** A `pulumi stack export` file holding the VM, optionally with a pending operation on it. */
  const stateFile = (pending: boolean): string => {
    const resource = { type: VM_TYPE, inputs: {}, outputs: vm };
    const file = path.join(dir, pending ? "pending.json" : "state.json");
    writeFileSync(
      file,
      JSON.stringify({
        deployment: {
          resources: [resource],
          pending_operations: pending ? [{ resource, type: "updating" }] : [],
        },
      }),
    );
    return file;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sweep-scan-"));
    sim = await startSimulator({ guestBootMs: 20 });
    const config: Record<string, string> = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vm = await createVm(buildContext({ get: (key) => config[key] }), inputs);
    connection = parseConnectionConfig(
      { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
      { env: {} },
    );
    api = new HttpProxmoxApi({ connection });
    // A seed of the same identity that nothing uses (as an older provider left after a recreate).
    const seed = buildVmSeed({
      identity: vm.identityHash,
      vmName: vm.vmName,
      macs: ["BC:24:11:00:00:99"],
      nics: { nics: [{ bridge: "vmbr0", model: "virtio", ipv4: "dhcp" }] },
      cloudInit: {},
    });
    await waitForTask(api, "pve1", await api.uploadIso("pve1", "local", seed), {
      budgetMs: 30_000,
    });
    stale = `local:iso/${seed.filename}`;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const isos = () => sim.model.volumes("pve1", "local").map((v) => v.volid);

  it("lists the stale seed as an orphan, and neither the attached seed nor the VM", async () => {
    const report = await sweep({ connection, stacks: [], stateFiles: [stateFile(false)] });
    expect(report.ownedVms).toBe(1);
    expect(report.items.map((i) => [i.kind, i.target, i.action])).toEqual([
      ["seed", stale, "orphan"],
    ]);
    expect(report.items[0]?.detail).toContain("stale: its identity is owned");
    expect(isos().sort()).toEqual([vm.seedVolid, stale].sort());
  });

  it("leaves the seeds alone while an operation on the resource is pending (an up may be re-seeding)", async () => {
    const report = await sweep({ connection, stacks: [], stateFiles: [stateFile(true)] });
    expect(report.items).toEqual([]);
  });

  it("deletes only the stale seed with --apply; the VM and its seed stay, and a second sweep is clean", async () => {
    const applied = await sweep({
      connection,
      stacks: [],
      stateFiles: [stateFile(false)],
      apply: true,
    });
    expect(applied.items.map((i) => [i.target, i.action])).toEqual([[stale, "deleted"]]);
    expect(applied.exitCode).toBe(0);
    expect(isos()).toEqual([vm.seedVolid]);
    expect(sim.model.vms.get(vm.vmid)?.config["ide2"]).toContain(vm.seedVolid ?? "?");
    const again = await sweep({ connection, stacks: [], stateFiles: [stateFile(false)] });
    expect(again.items).toEqual([]);
  });
});
