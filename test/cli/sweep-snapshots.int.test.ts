import { simulatorContext } from "../support/test-context";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sweep } from "../../cli/sweep";
import { HttpProxmoxApi } from "../../provider/pve/api/http-api";
import { parseConnectionConfig, type ConnectionConfig } from "../../provider/pve/config";
import { waitForTask } from "../../provider/pve/tasks/task-wait";
import { VM_TYPE } from "../../provider/entry";
import { checkVm } from "../../provider/vm/operations/check";
import { createVm } from "../../provider/vm/operations/create";
import { IN_PROGRESS, KEPT } from "../../provider/vm/rollback/snapshot-name";
import type { ResolvedInputs } from "../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../provider/vm/state/vm-state";
import { startSimulator, type Simulator } from "../../simulator";

const inputs = checkVm(
  {},
  {
    identity: { project: "int", stack: "sweep", name: "safe" },
    node: "pve1",
    template: 9000,
    storage: "local-lvm",
  },
).inputs as ResolvedInputs;

describe("sweep of the snapshots rollbackOnFailure left", () => {
  let sim: Simulator;
  let connection: ConnectionConfig;
  let vm: VmState;
  let dir: string;
  let state: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sweep-snapshots-"));
    sim = await startSimulator({ guestBootMs: 20 });
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    vm = await createVm(simulatorContext(sim), inputs);
    connection = parseConnectionConfig(
      { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
      { env: {} },
    );
    const api = new HttpProxmoxApi({ connection });
    // What a killed protected update leaves, one `keep` holds, and one someone else took.
    for (const [name, description] of [
      ["pp-update-0badc0de-1", IN_PROGRESS],
      ["pp-update-0badc0de-2", KEPT],
      ["before-upgrade", "by hand"],
    ] as const) {
      const upid = await api.createSnapshot("pve1", vm.vmid, { name, description });
      await waitForTask(api, "pve1", upid, { budgetMs: 30_000 });
    }
    state = path.join(dir, "state.json");
    const resource = { type: VM_TYPE, inputs: {}, outputs: vm };
    writeFileSync(state, JSON.stringify({ deployment: { resources: [resource] } }));
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const snapshots = () => Object.keys(sim.model.vms.get(vm.vmid)?.snapshots ?? {}).sort();

  it("lists only the snapshot of an update that never ended, on a VM a state owns", async () => {
    const report = await sweep({ connection, stacks: [], stateFiles: [state] });
    expect(report.items.map((i) => [i.kind, i.target, i.action])).toEqual([
      ["snapshot", `pp-update-0badc0de-1 of VM ${vm.vmid} on pve1`, "orphan"],
    ]);
    expect(report.items[0]?.detail).toContain("an update that never ended");
  });

  it("deletes it with --apply, leaving the VM, the kept snapshot and the other one", async () => {
    const applied = await sweep({ connection, stacks: [], stateFiles: [state], apply: true });
    expect(applied.items.map((i) => [i.kind, i.action])).toEqual([["snapshot", "deleted"]]);
    expect(snapshots()).toEqual(["before-upgrade", "pp-update-0badc0de-2"]);
    expect(sim.model.vms.has(vm.vmid)).toBe(true);
    const again = await sweep({ connection, stacks: [], stateFiles: [state] });
    expect(again.items).toEqual([]);
  });
});
