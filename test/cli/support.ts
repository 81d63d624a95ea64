import { execFile } from "node:child_process";
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
