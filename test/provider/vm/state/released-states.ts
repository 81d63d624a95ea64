import * as fs from "node:fs";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";
import type { VmDump } from "../../../../simulator";

/**
 * Stacks written by released versions, captured by scripts/capture-release-state.sh from a run of
 * fixtures/releases/program.js against each release's own simulator: `web` complete, `half` a
 * create that failed after the clone (its seed upload was refused).
 */
export const releasesDir = path.join(__dirname, "fixtures", "releases");

/** Each captured release by its folder: the version, then the commit it was captured from. */
export const RELEASES = ["0.1.0-b338f75", "reliability-57e1e7b"] as const;
export type Release = (typeof RELEASES)[number];

/** The capture's throwaway passphrase: it encrypted the secrets in the captured export. */
export const CAPTURE_PASSPHRASE = (
  JSON.parse(fs.readFileSync(path.join(releasesDir, "capture.json"), "utf8")) as {
    passphrase: string;
  }
).passphrase;

export interface CapturedResource {
  readonly type: string;
  readonly urn: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  readonly initErrors?: readonly string[];
}

export interface CapturedCheckpoint {
  readonly deployment: { readonly resources: CapturedResource[] };
}

/** The `pulumi stack export` the release left. */
export function capturedCheckpoint(release: Release): CapturedCheckpoint {
  return JSON.parse(
    fs.readFileSync(path.join(releasesDir, release, "stack.json"), "utf8"),
  ) as CapturedCheckpoint;
}

/** The outputs the release stored for the ProxmoxVm named `name` (`web` or `half`). */
export function capturedOutputs(release: Release, name: "web" | "half"): Record<string, unknown> {
  const resource = capturedCheckpoint(release).deployment.resources.find((r) =>
    r.urn.endsWith(`:ProxmoxVm::${name}`),
  );
  if (resource?.outputs === undefined) throw new Error(`no ${name} in ${release}'s capture`);
  return resource.outputs;
}

/** The simulator's dumps of the VMs the release's state names. */
export function capturedVms(release: Release): VmDump[] {
  const dir = path.join(releasesDir, release);
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".json.gz"))
    .map(
      (file) => JSON.parse(gunzipSync(fs.readFileSync(path.join(dir, file))).toString()) as VmDump,
    );
}
