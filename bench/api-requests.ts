// Benchmark of the API client against the simulator. Run from the repository root:
//
//   node --experimental-transform-types --no-warnings --require ./scripts/ts-hooks.ts bench/api-requests.ts
//
// Prints (1) requests per operation of a clone → config → start → read → stop → destroy sequence,
// counted from the simulator's request log; (2) `/cluster/resources` requests for a refresh of
// 1/10/100 VMs in one process, with and without listing coalescing; (3) the polling overshoot
// of waitForTask (detected done minus actually done) for 0.5 s, 2 s and 10 s tasks.
import { ListingCoalescer, coalescedApi } from "../provider/pve/api/coalesced-api.js";
import { closeSharedDispatchers } from "../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../provider/pve/api/http-api.js";
import type { ProxmoxApi } from "../provider/pve/api/proxmox-api.js";
import { waitForTask } from "../provider/pve/tasks/task-wait.js";
import { parseConnectionConfig } from "../provider/pve/config.js";
import { startSimulator, type Simulator } from "../simulator/index.js";

const TEMPLATE = 9000;

function clientFor(sim: Simulator): HttpProxmoxApi {
  const connection = parseConnectionConfig(
    { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
    { env: {} },
  );
  return new HttpProxmoxApi({ connection });
}

/** Runs `step` and returns how many API requests the simulator served meanwhile. */
async function counted(sim: Simulator, step: () => Promise<unknown>): Promise<number> {
  const before = sim.requestLog.length;
  await step();
  return sim.requestLog.length - before;
}

async function requestsPerOperation(): Promise<void> {
  const sim = await startSimulator({
    taskDurationsMs: { qmclone: 2_000, qmconfig: 100, qmstart: 500, qmstop: 500, qmdestroy: 500 },
  });
  try {
    const api = clientFor(sim);
    const wait = (upid: string | null) =>
      upid === null ? Promise.resolve() : waitForTask(api, "pve1", upid, { budgetMs: 60_000 });
    const vmid = await api.nextVmid();
    const rows: [string, number][] = [];
    rows.push(["nextid", 1]);
    rows.push([
      "clone (2 s task)",
      await counted(sim, async () =>
        wait(
          await api.cloneVm({
            node: "pve1",
            vmid: TEMPLATE,
            newid: vmid,
            name: "bench",
            full: false,
          }),
        ),
      ),
    ]);
    rows.push([
      "config (0.1 s task)",
      await counted(sim, async () =>
        wait(await api.updateVmConfig("pve1", vmid, { set: { cores: 4 } })),
      ),
    ]);
    rows.push([
      "start (0.5 s task)",
      await counted(sim, async () => wait(await api.startVm("pve1", vmid))),
    ]);
    rows.push([
      "read (config + status)",
      await counted(sim, () =>
        Promise.all([api.vmConfig("pve1", vmid), api.vmStatus("pve1", vmid)]),
      ),
    ]);
    rows.push([
      "stop (0.5 s task)",
      await counted(sim, async () => wait(await api.stopVm("pve1", vmid))),
    ]);
    rows.push([
      "destroy (0.5 s task)",
      await counted(sim, async () => wait(await api.destroyVm("pve1", vmid))),
    ]);
    console.log("\n1. Requests per operation (dispatch + task status polls):");
    for (const [name, count] of rows)
      console.log(`   ${name.padEnd(24)} ${String(count).padStart(3)}`);
    console.log(
      `   ${"total".padEnd(24)} ${String(rows.reduce((sum, [, n]) => sum + n, 0)).padStart(3)}`,
    );
  } finally {
    await sim.close();
  }
}

/** A refresh's read of one VM: find it in the listing, then read its config. */
async function readVm(api: ProxmoxApi, vmid: number): Promise<void> {
  const row = (await api.clusterVms()).find((vm) => vm.vmid === vmid);
  if (row !== undefined) await api.vmConfig(row.node, vmid);
}

async function listingCalls(): Promise<void> {
  const sim = await startSimulator({ defaultTaskMs: 0 });
  try {
    const api = clientFor(sim);
    const vmids: number[] = [];
    for (let i = 0; i < 100; i++) {
      const vmid = 1000 + i;
      const upid = await api.cloneVm({
        node: "pve1",
        vmid: TEMPLATE,
        newid: vmid,
        name: `r${i}`,
        full: false,
      });
      await waitForTask(api, "pve1", upid, { budgetMs: 60_000 });
      vmids.push(vmid);
    }
    const listings = () =>
      sim.requestLog.filter((entry) => entry.path === "/cluster/resources").length;
    console.log("\n2. /cluster/resources requests for a refresh of N VMs in one process:");
    console.log("   N     plain   coalesced (all at once)   coalesced (10 waves, 50 ms apart)");
    for (const n of [1, 10, 100]) {
      const targets = vmids.slice(0, n);
      sim.clearRequestLog();
      await Promise.all(targets.map((vmid) => readVm(api, vmid)));
      const plain = listings();

      sim.clearRequestLog();
      const burst = coalescedApi(api, new ListingCoalescer({ freshnessMs: 2_000 }));
      await Promise.all(targets.map((vmid) => readVm(burst, vmid)));
      const coalesced = listings();

      sim.clearRequestLog();
      const waves = coalescedApi(api, new ListingCoalescer({ freshnessMs: 2_000 }));
      const pending: Promise<void>[] = [];
      for (let wave = 0; wave < 10; wave++) {
        pending.push(
          ...targets.filter((_, i) => i % 10 === wave).map((vmid) => readVm(waves, vmid)),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.all(pending);
      const staggered = listings();
      console.log(
        `   ${String(n).padEnd(5)} ${String(plain).padStart(5)}   ${String(coalesced).padStart(9)}${" ".repeat(25)}${String(staggered).padStart(3)}`,
      );
    }
  } finally {
    await sim.close();
  }
}

async function pollingOvershoot(): Promise<void> {
  console.log(
    "\n3. Polling overshoot of waitForTask (detected done − actually done), 3 runs each:",
  );
  for (const durationMs of [500, 2_000, 10_000]) {
    const sim = await startSimulator({
      taskDurationsMs: { qmstart: durationMs, qmstop: 0, qmclone: 0 },
    });
    try {
      const api = clientFor(sim);
      const vmid = await api.nextVmid();
      await waitForTask(
        api,
        "pve1",
        await api.cloneVm({ node: "pve1", vmid: TEMPLATE, newid: vmid, name: "poll", full: false }),
        { budgetMs: 10_000 },
      );
      const overshoots: number[] = [];
      const polls: number[] = [];
      for (let run = 0; run < 3; run++) {
        const upid = await api.startVm("pve1", vmid);
        // The simulator runs in this process: watch its task table every 2 ms for the true end.
        let doneAt: number | undefined;
        const watcher = setInterval(() => {
          if (doneAt === undefined && sim.model.tasks.get(upid)?.status === "stopped") {
            doneAt = performance.now();
          }
        }, 2);
        const result = await waitForTask(api, "pve1", upid, { budgetMs: 60_000 });
        const detectedAt = performance.now();
        clearInterval(watcher);
        overshoots.push(detectedAt - (doneAt ?? detectedAt));
        polls.push(result.polls);
        await waitForTask(api, "pve1", await api.stopVm("pve1", vmid), { budgetMs: 10_000 });
      }
      const mean = overshoots.reduce((a, b) => a + b, 0) / overshoots.length;
      const max = Math.max(...overshoots);
      console.log(
        `   ${(durationMs / 1000).toFixed(1).padStart(4)} s task: mean ${mean.toFixed(0).padStart(4)} ms ` +
          `(${((mean / durationMs) * 100).toFixed(1)}%), max ${max.toFixed(0).padStart(4)} ms ` +
          `(${((max / durationMs) * 100).toFixed(1)}%), polls ${polls.join("/")}`,
      );
    } finally {
      await sim.close();
    }
  }
}

async function main(): Promise<void> {
  await requestsPerOperation();
  await listingCalls();
  await pollingOvershoot();
  await closeSharedDispatchers();
}

// A CommonJS file: no top-level await.
void main();
