import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { startedLater } from "../../support/started-later.js";
import { startWithClient, startWithClonedVm, type TestClient } from "./client.js";

export interface SimulatorSetup {
  /** On top of the fast test defaults of {@link startWithClient}. */
  readonly options?: SimulatorOptions;
  /** Start with VM 100 ("web") cloned from template 9000 on pve1. */
  readonly clonedVm?: boolean;
  /** A fresh simulator for each test (the default), or one for the whole describe block. */
  readonly per?: "test" | "block";
}

export interface SimulatorFixture {
  readonly sim: Simulator;
  /** A client with the simulator's root token. */
  readonly api: TestClient;
}

/**
 * Registers the hooks that start a simulator and its client before each test (or once for the
 * block) and close both after it; `sim` and `api` read the current ones.
 */
export function useSimulator(setup: SimulatorSetup = {}): SimulatorFixture {
  let current: { sim: Simulator; api: TestClient } | undefined;
  const start = setup.clonedVm ? startWithClonedVm : startWithClient;
  const [before, after] = setup.per === "block" ? [beforeAll, afterAll] : [beforeEach, afterEach];
  before(async () => {
    current = await start(setup.options);
  });
  after(async () => {
    await current?.api.close();
    await current?.sim.close();
    current = undefined;
  });
  return {
    sim: startedLater("the simulator", () => current?.sim),
    api: startedLater("the simulator's client", () => current?.api),
  };
}
