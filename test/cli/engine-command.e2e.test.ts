import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, type EngineEnv } from "../e2e/support/engine";
import { guestVms, proxmoxStack } from "../e2e/support/proxmox-stack";
import { runBin, startUp, until } from "./support";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
new ProxmoxVm("solo", { node: "pve1", template: 9000, cores: 1, memory: 512 });
`;

/** Runs one shell line as the user would paste it. */
function shell(line: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", line], { env }, (error) =>
      resolve(error ? (typeof error.code === "number" ? error.code : 1) : 0),
    );
  });
}

describe("what drift, up and destroy say when the stack cannot be used", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator({ taskDurationsMs: { qmclone: 4_000 } });
    engine = engineEnv();
    dir = await proxmoxStack("cli-locked", program, sim, engine);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("names the pulumi cancel that frees a stack a killed run left locked, which then works", async () => {
    const run = startUp(dir, engine.env);
    await until("a running clone", () =>
      [...sim.model.tasks.values()].some((t) => t.type === "qmclone" && t.status === "running"),
    );
    run.kill();
    await run.exited;

    const locked = await runBin(["up", "--stack", "dev"], dir, engine.env);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain("up of stack dev failed.");
    expect(locked.stderr).toContain("stack dev is locked");
    expect(locked.stderr).toContain("It removes the lock and changes nothing on Proxmox.");
    expect(locked.stderr).not.toMatch(/error: error:/);
    const command = /^\s*(pulumi cancel --yes --stack dev --cwd \S+)$/m.exec(locked.stderr)?.[1];
    expect(command).toBe(`pulumi cancel --yes --stack dev --cwd ${dir}`);

    expect(await shell(command ?? "false", engine.env)).toBe(0);
    const up = await runBin(["up", "--stack", "dev", "--quiet"], dir, engine.env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(guestVms(sim)).toHaveLength(1);
  });

  it("says a --cwd that does not exist is one, not the automation API's spawn error", async () => {
    // --cwd and --stack swapped: the stack's name read as a directory.
    const swapped = await runBin(["drift", "--cwd", "dev", "--stack", dir], dir, engine.env);
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toContain(`--cwd dev: ${path.join(dir, "dev")} does not exist.`);
    expect(swapped.stderr).toContain(
      "--cwd takes the program's directory (the one holding Pulumi.yaml), --stack the stack's name",
    );
    expect(swapped.stderr).not.toMatch(/code: -2|stdout:|err\?:/);
  });

  it("says a --cwd without Pulumi.yaml holds none", async () => {
    const empty = fs.mkdtempSync(path.join(dir, "empty-"));
    const result = await runBin(["up", "--cwd", empty, "--stack", "dev"], dir, engine.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--cwd ${empty}: ${empty} holds no Pulumi.yaml.`);
  });

  it("names the stacks there when --stack names none of them", async () => {
    const result = await runBin(["destroy", "--stack", "prod"], dir, engine.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `no stack named 'prod' found for the program in ${dir}; its stacks: dev.`,
    );
    expect(result.stderr).not.toMatch(/code: |stdout:|err\?:/);
  });
});
