import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { reportKilled, SUITE_MARKER_VARIABLE } from "./engine";
import { e2eRoot, repoRoot } from "./paths";
import { findProcesses, killProcesses } from "./processes";

/**
 * Builds and packs the package once, then installs the tarball into a consumer workspace, so
 * every engine test loads `pulumi-proxmox` by name from node_modules — the path the closure
 * serializer and the dynamic-provider host really take for a user.
 */
export default function setup(): () => void {
  for (const tool of ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "pipe" });
    } catch {
      throw new Error(`${tool} is not on PATH: run the tests through scripts/test.sh`);
    }
  }
  const runDir = path.join(e2eRoot, `run-${process.pid}`);
  removeStaleRuns();
  const workspaceDir = path.join(runDir, "workspace");
  fs.mkdirSync(workspaceDir, { recursive: true });
  // Test workers start after this and inherit the variable (see paths.ts).
  process.env["PULUMI_PROXMOX_E2E_WORKSPACE"] = workspaceDir;
  // scripts/test.sh builds once before its vitest runs (two of which start together) and says so;
  // a run started by hand builds here, so it never packs a stale dist/.
  if (process.env["PULUMI_PROXMOX_E2E_PREBUILT"] !== "1")
    run("npm", ["run", "build", "--silent"], repoRoot);
  const packed = run("npm", ["pack", "--silent", "--pack-destination", runDir], repoRoot)
    .trim()
    .split("\n")
    .pop();
  if (!packed) throw new Error("npm pack printed no file name");
  const tarball = path.join(runDir, "pulumi-proxmox.tgz");
  fs.renameSync(path.join(runDir, packed), tarball);

  const version = (pkg: string) =>
    readJson(path.join(repoRoot, "node_modules", pkg, "package.json")).version as string;
  // typescript and @types/node: the TypeScript examples run here as a user runs them, through
  // the SDK's ts-node with the project's own compiler (the repo's versions, already cached).
  const manifest = {
    name: "e2e-workspace",
    private: true,
    dependencies: {
      "@pulumi/pulumi": version("@pulumi/pulumi"),
      "pulumi-proxmox": `file:${tarball}`,
      typescript: version("typescript"),
      "@types/node": version("@types/node"),
    },
  };
  fs.writeFileSync(path.join(workspaceDir, "package.json"), JSON.stringify(manifest, null, 2));
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--install-links", "--silent"],
    workspaceDir,
  );
  return () => {
    killLeftovers(workspaceDir);
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}

/**
 * Kills the process groups of everything this run's engine tests started and is still alive:
 * processes with the run's engine marker in their environment or a cwd in its workspace.
 * The vitest workers share neither, so they are never matched.
 */
function killLeftovers(workspaceDir: string): void {
  const marker = `${SUITE_MARKER_VARIABLE}=${workspaceDir}`;
  const left = findProcesses(
    (p) => p.environ.includes(marker) || p.cwd.startsWith(`${workspaceDir}${path.sep}`),
  );
  reportKilled(`left behind by the e2e run in ${workspaceDir}`, killProcesses(left));
}

/** Workspaces of earlier runs whose process is gone (a run removes its own at the end). */
function removeStaleRuns(): void {
  for (const entry of fs.existsSync(e2eRoot) ? fs.readdirSync(e2eRoot) : []) {
    const pid = Number(/^run-(\d+)$/.exec(entry)?.[1]);
    if (!pid || isAlive(pid)) continue;
    fs.rmSync(path.join(e2eRoot, entry), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}
