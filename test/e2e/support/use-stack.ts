import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../simulator";
import { expectSuccess } from "../../support/command-result";
import { startedLater } from "../../support/started-later";
import { engineEnv, pulumi, writeProgram, type CliResult, type EngineEnv } from "./engine";
import { configureProxmoxStack } from "./proxmox-stack";

/** Where a stack's program comes from: JavaScript written here, or a folder already prepared. */
export type StackProgram =
  { readonly name: string; readonly program: string } | { readonly dir: string };

export interface StackOptions {
  readonly simulator?: SimulatorOptions;
  /** `pulumi destroy` before the simulator stops, for files whose last test leaves resources. */
  readonly destroyAfter?: boolean;
  /** Log in as root@pam with its password instead of the API token (keys only root may set). */
  readonly rootLogin?: boolean;
}

export interface Stack {
  readonly sim: Simulator;
  readonly engine: EngineEnv;
  /** The program's folder in the consumer workspace, stack `dev` selected. */
  readonly dir: string;
  /** `pulumi <args>` in the stack's folder. */
  pulumi(args: string[]): Promise<CliResult>;
  /** `pulumi up --yes --skip-preview <extra>`, asserting it succeeded. */
  up(...extra: string[]): Promise<CliResult>;
}

/**
 * One stack against one simulator for the whole describe block: before its tests a simulator
 * starts, a fresh engine env is made and stack `dev` is pointed at the simulator; after them the
 * stack is optionally destroyed, the engine's leftovers are killed and the simulator stops.
 * `sim` and `engine` can be named in the describe block as plain variables although they exist
 * only once the hook has run (see {@link startedLater}); `dir` exists at once.
 */
export function useStack(source: StackProgram, options: StackOptions = {}): Stack {
  let sim: Simulator | undefined;
  let engine: EngineEnv | undefined;
  const dir = "dir" in source ? source.dir : writeProgram(source.name, source.program);
  const stack: Stack = {
    sim: startedLater("the simulator", () => sim),
    engine: startedLater("the engine env", () => engine),
    dir,
    pulumi: (args) => pulumi(args, dir, stack.engine.env),
    up: async (...extra) => {
      const result = await stack.pulumi(["up", "--yes", "--skip-preview", ...extra]);
      expectSuccess(result);
      return result;
    },
  };
  beforeAll(async () => {
    sim = await startSimulator(options.simulator);
    engine = engineEnv();
    const root = { username: "root@pam", password: sim.rootPassword };
    await configureProxmoxStack(dir, sim, engine, options.rootLogin ? root : undefined);
  });
  afterAll(async () => {
    if (options.destroyAfter && engine) await stack.pulumi(["destroy", "--yes", "--skip-preview"]);
    engine?.cleanup();
    await sim?.close();
  });
  return stack;
}

export interface EnginePerTest {
  readonly engine: EngineEnv;
  /** Starts a simulator that is stopped after the test that started it. */
  startSimulator(options?: SimulatorOptions): Promise<Simulator>;
}

/**
 * For tests that each need their own simulator settings: a fresh engine env before each test,
 * and after it the engine's leftovers killed and every simulator the test started stopped.
 */
export function useEnginePerTest(): EnginePerTest {
  let engine: EngineEnv | undefined;
  const started: Simulator[] = [];
  beforeEach(() => {
    engine = engineEnv();
  });
  afterEach(async () => {
    engine?.cleanup();
    engine = undefined;
    await Promise.all(started.splice(0).map((sim) => sim.close()));
  });
  return {
    engine: startedLater("the engine env", () => engine),
    startSimulator: async (options) => {
      const sim = await startSimulator(options);
      started.push(sim);
      return sim;
    },
  };
}
