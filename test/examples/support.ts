import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { CommandResult } from "../support/command-result";
import { repoRoot, workspaceDir } from "../e2e/support/paths";

/**
 * Copies `examples/<name>` into a fresh folder of the consumer workspace, as a user copies it
 * into their repo: its imports of `pulumi-proxmox` then resolve by name to the packed package
 * installed there. node_modules and build output are left behind.
 */
export function copyExample(name: string): string {
  const source = path.join(repoRoot, "examples", name);
  const dir = fs.mkdtempSync(path.join(workspaceDir, `example-${name}-`));
  for (const entry of fs.readdirSync(source)) {
    if (entry === "node_modules" || entry === "bin" || entry === "package-lock.json") continue;
    fs.cpSync(path.join(source, entry), path.join(dir, entry), { recursive: true });
  }
  return dir;
}

export function readManifest(name: string): {
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
} {
  return JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", name, "package.json"), "utf8"));
}

export type RunResult = CommandResult;

/** Runs a command; resolves with its exit code and output, never rejects. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The TypeScript compiler installed in the consumer workspace (the project's own). */
export const tsc = path.join(workspaceDir, "node_modules", "typescript", "bin", "tsc");
