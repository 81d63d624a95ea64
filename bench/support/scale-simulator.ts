import { REALISTIC_TASK_MS } from "../../simulator";

/**
 * The simulator of the scale benches: a VM's create waits on its clone (3 s), its start (1 s)
 * and its guest's boot (1 s), its critical path; other tasks take PVE's realistic durations or
 * 300 ms; every request holds one of the node's API workers for `latencyMs`; the cluster
 * listing lags a second behind, as pvestatd's does.
 */
export function scaleSimulatorOptions(options: {
  readonly latencyMs: number;
  readonly apiWorkers: number;
  /** ± share of each duration drawn at random; 0 gives the durations themselves. */
  readonly jitter?: number;
}) {
  return {
    taskDurationsMs: { ...REALISTIC_TASK_MS, qmclone: 3000, qmstart: 1000 },
    defaultTaskMs: 300,
    guestBootMs: 1000,
    taskJitter: options.jitter ?? 0.3,
    requestLatencyMs: options.latencyMs,
    apiWorkers: options.apiWorkers,
    listingLagMs: 1000,
  } as const;
}
