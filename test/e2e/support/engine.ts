import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CommandResult } from "../../support/command-result";
import { workspaceDir } from "./paths";
import { describeProcesses, killProcesses, leftoverProcesses, type ProcessInfo } from "./processes";

/** Loads a module the way a user's program would: from the consumer workspace, by name. */
export const requireFromWorkspace = createRequire(path.join(workspaceDir, "package.json"));

export interface EngineEnv {
  /** A fresh local file backend and Pulumi home for one test file. */
  readonly env: NodeJS.ProcessEnv;
  readonly backendDir: string;
  /** In the environment of every process this env's runs start (see {@link leftoverProcesses}). */
  readonly marker: string;
  /** Kills (and reports) any process its runs left behind, then removes backend and home. */
  cleanup(): void;
}

export function engineEnv(extra: NodeJS.ProcessEnv = {}): EngineEnv {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "pp-engine-"));
  const backendDir = path.join(base, "backend");
  fs.mkdirSync(backendDir);
  const home = path.join(base, "home");
  return {
    backendDir,
    marker: home,
    env: {
      ...process.env,
      PULUMI_BACKEND_URL: `file://${backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      // What global-setup's teardown finds this test run's engine processes by.
      [SUITE_MARKER_VARIABLE]: workspaceDir,
      ...extra,
    },
    cleanup: () => {
      reportKilled(`left by the engine runs under ${home}`, killProcesses(leftoverProcesses(home)));
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Set in every engine env, to the run's workspace: no other process has it. */
export const SUITE_MARKER_VARIABLE = "PULUMI_PROXMOX_E2E_ENGINE";

/** A process a run left behind is a defect even when its test passed: say so loudly. */
export function reportKilled(what: string, killed: readonly ProcessInfo[]): void {
  if (killed.length === 0) return;
  console.warn(`e2e: killed ${killed.length} process(es) ${what}:${describeProcesses(killed)}`);
}

export type CliResult = CommandResult;

/** Runs the real `pulumi` CLI; never throws on a non-zero exit, so tests can assert on it. */
export function pulumi(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      [...args, "--non-interactive", "--color=never"],
      { cwd, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `up` after a kill: clears the engine's lock on the stack if the killed run left one. */
export async function upAgain(dir: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  let result = await pulumi(["up", "--yes", "--skip-preview"], dir, env);
  if (result.code !== 0 && /locked/.test(result.stderr + result.stdout)) {
    await pulumi(["cancel", "--yes"], dir, env);
    result = await pulumi(["up", "--yes", "--skip-preview"], dir, env);
  }
  return result;
}

/** Writes a JavaScript Pulumi program into a fresh folder of the consumer workspace. */
export function writeProgram(name: string, source: string): string {
  const dir = fs.mkdtempSync(path.join(workspaceDir, `${name}-`));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      `name: ${name}`,
      "runtime:",
      "  name: nodejs",
      "  options:",
      "    typescript: false",
      "main: index.js",
      "",
    ].join("\n"),
  );
  fs.writeFileSync(path.join(dir, "index.js"), source);
  return dir;
}

/** The resources of a stack's current state, from `pulumi stack export`. */
export async function exportedResources(
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ type: string; id?: string; outputs?: Record<string, unknown> }[]> {
  const result = await pulumi(["stack", "export"], cwd, env);
  if (result.code !== 0) throw new Error(`stack export failed: ${result.stderr}`);
  const state = JSON.parse(result.stdout) as {
    deployment: { resources?: { type: string; id?: string; outputs?: Record<string, unknown> }[] };
  };
  return state.deployment.resources ?? [];
}
