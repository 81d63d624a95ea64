import * as path from "node:path";

/** The repository root, whatever the cwd of the test runner. */
export const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** Git-ignored scratch space for the engine tests: the packed package, installs, backends. */
export const e2eRoot = path.join(repoRoot, ".e2e");

/**
 * A consumer project with `pulumi-proxmox` installed *by name* from `npm pack`'s tarball, as a
 * user's project gets it. Programs live in sub-folders so they resolve this node_modules. One
 * per test run (global-setup sets the variable), so two runs never reinstall under each other.
 */
export const workspaceDir =
  process.env["PULUMI_PROXMOX_E2E_WORKSPACE"] ?? path.join(e2eRoot, "workspace");
