import { TaskDurations } from "../../provider/pve/tasks/task-durations";
import { CloneRegistry } from "../../provider/pve/clone-registry";
import type { OperationContext } from "../../provider/pve/context";
import { classifyTaskFailure } from "../../provider/pve/classify";
import { buildContext } from "../../provider/pve/connection";
import type { Simulator } from "../../simulator";
import type { FakeProxmoxApi } from "./fake-api";

/** An OperationContext around the fake: instant tasks, a virtual clock, recorded progress. */
export function testContext(api: FakeProxmoxApi): OperationContext & {
  readonly progressLines: string[];
  readonly warnings: string[];
} {
  let now = 0;
  const progressLines: string[] = [];
  const warnings: string[] = [];
  return {
    api,
    progressLines,
    warnings,
    listVms: () => api.clusterVms(),
    waitForTask: async (node, upid) => {
      const status = await api.taskStatus(node, upid);
      const exit = status.exitstatus ?? "";
      if (exit !== "OK" && !exit.startsWith("WARNINGS")) {
        throw classifyTaskFailure(node, upid, exit, [`TASK ERROR: ${exit}`]);
      }
      return { warnings: [] };
    },
    guestBoots: new TaskDurations(),
    clones: new CloneRegistry(),
    withLock: (_key, fn) => fn(),
    withHeavyTaskSlot: (_node, _step, fn) => fn(),
    progress: (message) => progressLines.push(message),
    warn: (message) => warnings.push(message),
    sleep: async (ms) => {
      now += ms;
    },
    now: () => now,
  };
}

/** The provider's real OperationContext, pointed at a simulator with its token and CA. */
export function simulatorContext(sim: Simulator): OperationContext {
  const config: Record<string, string> = {
    "proxmox:endpoint": sim.url,
    "proxmox:apiToken": sim.apiToken,
    "proxmox:caCert": sim.caCertPem,
  };
  return buildContext({ get: (key) => config[key] });
}
