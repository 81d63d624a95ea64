import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { e2eRoot, repoRoot, workspaceDir } from "./paths";

/**
 * Builds and packs the package once, then installs the tarball into a consumer workspace, so
 * every engine test loads `pulumi-proxmox` by name from node_modules — the path the closure
 * serializer and the dynamic-provider host really take for a user.
 */
export default function setup(): void {
  for (const tool of ["pulumi", "pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "pipe" });
    } catch {
      throw new Error(`${tool} is not on PATH: run the tests through scripts/test.sh`);
    }
  }
  fs.mkdirSync(workspaceDir, { recursive: true });
  run("npm", ["run", "build", "--silent"], repoRoot);
  const packed = run("npm", ["pack", "--silent", "--pack-destination", e2eRoot], repoRoot)
    .trim()
    .split("\n")
    .pop();
  if (!packed) throw new Error("npm pack printed no file name");
  const tarball = path.join(e2eRoot, "pulumi-proxmox.tgz");
  fs.renameSync(path.join(e2eRoot, packed), tarball);

  const sdkVersion = readJson(path.join(repoRoot, "node_modules/@pulumi/pulumi/package.json"))
    .version as string;
  const manifest = {
    name: "e2e-workspace",
    private: true,
    dependencies: { "@pulumi/pulumi": sdkVersion, "pulumi-proxmox": `file:${tarball}` },
  };
  fs.writeFileSync(path.join(workspaceDir, "package.json"), JSON.stringify(manifest, null, 2));
  // npm keeps an installed file: tarball of the same version even when its content changed.
  fs.rmSync(path.join(workspaceDir, "node_modules", "pulumi-proxmox"), {
    recursive: true,
    force: true,
  });
  fs.rmSync(path.join(workspaceDir, "package-lock.json"), { force: true });
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--install-links", "--silent"],
    workspaceDir,
  );
}

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}
