// Where one create's time goes: `pulumi up` of one VM through the real engine, against the
// simulator of bench:scale without jitter, printed as one timeline of the requests the provider
// sent and the PVE tasks and guest boot they waited on, with how late each end was seen. A
// fresh provider process, as a user's first `up` has: nothing learned about task durations.
//
//   npm run bench:timeline
//   TIMELINE_LATENCY_MS=0 npm run bench:timeline
//
// Exits non-zero only when it cannot run (a failed `up` or `destroy`).
import { it } from "vitest";
import { startSimulator, type Simulator } from "../simulator";
import { engineEnv, pulumi } from "../test/e2e/support/engine";
import { proxmoxStack } from "../test/e2e/support/proxmox-stack";
import { scaleSimulatorOptions } from "./support/scale-simulator";

const LATENCY_MS = Number(process.env["TIMELINE_LATENCY_MS"] ?? 20);

const PROGRAM = `
const { ProxmoxVm } = require("pulumi-proxmox");
new ProxmoxVm("vm", { node: "pve1", template: 9000, cores: 1, memory: 512, cloudInit: { packages: ["htop"] } });
`;

interface Event {
  readonly at: number;
  readonly what: string;
}

/**
 * Task starts and ends and guest boots as the model shows them, sampled every 5 ms: the
 * simulator keeps task times in whole seconds, as PVE does.
 */
function watchModel(sim: Simulator): { events: Event[]; stop(): void } {
  const events: Event[] = [];
  const seen = new Map<string, string>();
  const note = (key: string, state: string, what: string) => {
    if (seen.get(key) === state) return;
    seen.set(key, state);
    events.push({ at: Date.now(), what });
  };
  const timer = setInterval(() => {
    for (const task of sim.model.tasks.values()) {
      note(task.upid, task.status, `task ${task.type} ${task.status}`);
    }
    for (const [vmid, vm] of sim.model.vms) {
      const agentUp = vm.guest.agentUpAt !== undefined && vm.guest.agentUpAt <= Date.now();
      note(`agent ${vmid}`, String(agentUp), `VM ${vmid}: guest agent ${agentUp ? "up" : "down"}`);
    }
  }, 5);
  return { events, stop: () => clearInterval(timer) };
}

it("prints one create's requests and the tasks they wait on, on one time axis", async () => {
  const sim = await startSimulator(
    scaleSimulatorOptions({ latencyMs: LATENCY_MS, apiWorkers: 3, jitter: 0 }),
  );
  const engine = engineEnv();
  try {
    const dir = await proxmoxStack("timeline", PROGRAM, sim, engine);
    sim.clearRequestLog();
    const model = watchModel(sim);
    // Only what this up changes: the templates' state before it is not news.
    await new Promise((resolve) => setTimeout(resolve, 20));
    model.events.length = 0;
    const started = Date.now();
    const result = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    const ended = Date.now();
    model.stop();
    if (result.code !== 0) throw new Error(`pulumi up failed:\n${result.stderr}${result.stdout}`);
    const requests = sim.requestLog.map((entry) => ({
      at: entry.receivedAt,
      what: `${entry.method} ${entry.path} → ${entry.status} in ${entry.durationMs.toFixed(0)} ms`,
    }));
    const events = [...requests, ...model.events].sort((a, b) => a.at - b.at);
    const polls = sim.requestLog.filter((entry) => /\/tasks(\/[^/]+\/status)?$/.test(entry.path));
    console.log(
      [
        `bench:timeline: up of one VM, ${LATENCY_MS} ms per request, clone 3 s / start 1 s / ` +
          `boot 1 s / other tasks 300–500 ms, no jitter`,
        "",
        "|   ms | event |",
        "|---:|---|",
        ...events.map((event) => `| ${event.at - started} | ${event.what} |`),
        `| ${ended - started} | up ended |`,
        "",
        `${sim.requestLog.length} requests (${polls.length} task polls); ` +
          `first request ${(requests[0]?.at ?? ended) - started} ms after the up began.`,
      ].join("\n"),
    );
    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    if (destroyed.code !== 0) throw new Error(`pulumi destroy failed:\n${destroyed.stderr}`);
  } finally {
    await sim.close();
    engine.cleanup();
  }
});
