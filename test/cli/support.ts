import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { CommandResult } from "../support/command-result";
import { workspaceDir } from "../e2e/support/paths";

/** The `pulumi-proxmox` bin as npm linked it into the consumer workspace. */
export const BIN = path.join(workspaceDir, "node_modules", ".bin", "pulumi-proxmox");

export type BinResult = CommandResult;

/** Runs the installed bin; never throws on a non-zero exit. */
export function runBin(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(BIN, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/** `pulumi up` in its own process group (so the whole engine dies at once), stdout collected. */
export function startUp(dir: string, env: NodeJS.ProcessEnv) {
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
    cwd: dir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return {
    stdout: () => stdout,
    kill: () => {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    },
    exited: new Promise<void>((resolve) => child.once("exit", () => resolve())),
  };
}

/** Waits until `condition` holds, polling every 20 ms; fails naming `what` after `timeoutMs`. */
export async function until(what: string, condition: () => boolean, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
