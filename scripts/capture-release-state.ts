/**
 * The capture half of scripts/capture-release-state.sh: runs the release program against a
 * released build's own simulator with the real `pulumi up`, then writes what that release left:
 *
 *   stack.json         `pulumi stack export` (secrets encrypted with the capture's passphrase)
 *   vm-<vmid>.json.gz  each VM the state names, as the simulator held it: config with its mark,
 *                    pending section, power state, guest view, and its volumes (the seed ISO's
 *                    bytes in base64), in the form the simulator's restoreVm takes
 *
 *   node scripts/capture-release-state.ts <built release> <workspace> <fixtures dir> <label>
 *
 * The fixtures dir holds `program.js` and `capture.json` (the passphrase, a throwaway: it only
 * protects the capture's API token, which died with its simulator); the files go to <label>/.
 *
 * The workspace's node_modules holds @pulumi/pulumi and the release as `pulumi-proxmox`, so the
 * program and the dynamic-provider host load the release by name, as a user's project does.
 */
/* eslint-disable @typescript-eslint/no-require-imports --
   The package is CommonJS, so Node's type stripping runs this file as CJS: `import` statements
   would not load, `require` does. */
const { execFile } = require("node:child_process") as typeof import("node:child_process");
const fs = require("node:fs") as typeof import("node:fs");
const path = require("node:path") as typeof import("node:path");
const { gzipSync } = require("node:zlib") as typeof import("node:zlib");
/* eslint-enable @typescript-eslint/no-require-imports */

/** The parts of a released simulator this script uses (stable since 0.1.0). */
interface ReleasedSimulator {
  readonly url: string;
  readonly caCertPem: string;
  readonly apiToken: string;
  readonly faults: {
    failRequests(m: { method: string; path: RegExp; count: number }, s: number, t: string): void;
  };
  readonly model: {
    readonly vms: ReadonlyMap<number, { node: string; config: Record<string, unknown> }>;
    readonly storages: readonly { storage: string }[];
    volumes(node: string, storage: string): readonly { volid: string; vmid?: number }[];
  };
  close(): Promise<void>;
}

interface ExportedResource {
  readonly type: string;
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
  readonly initErrors?: readonly string[];
}

const [releaseDir, workspaceDir, fixturesDir, label] = process.argv.slice(2);
if (!releaseDir || !workspaceDir || !fixturesDir || !label) {
  throw new Error(
    "usage: capture-release-state.ts <built release> <workspace> <fixtures dir> <label>",
  );
}

async function main(dirs: { release: string; workspace: string; fixtures: string; out: string }) {
  const { passphrase } = JSON.parse(
    fs.readFileSync(path.join(dirs.fixtures, "capture.json"), "utf8"),
  ) as { passphrase: string };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the release's build, by path
  const { startSimulator } = require(path.join(dirs.release, "dist", "simulator")) as {
    startSimulator(options: Record<string, unknown>): Promise<ReleasedSimulator>;
  };
  const sim = await startSimulator({ listingLagMs: 0, guestBootMs: 200, defaultTaskMs: 100 });
  try {
    const programDir = path.join(dirs.workspace, "compat");
    fs.mkdirSync(programDir, { recursive: true });
    fs.writeFileSync(
      path.join(programDir, "Pulumi.yaml"),
      "name: compat\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.js\n",
    );
    fs.copyFileSync(path.join(dirs.fixtures, "program.js"), path.join(programDir, "index.js"));
    fs.writeFileSync(path.join(programDir, "ca.pem"), sim.caCertPem);
    const backend = path.join(dirs.workspace, "backend");
    fs.mkdirSync(backend, { recursive: true });
    const env = {
      ...process.env,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: passphrase,
      PULUMI_HOME: path.join(dirs.workspace, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    // Asynchronous: the simulator answers from this process's event loop meanwhile.
    const pulumi = (...args: string[]) =>
      new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          "pulumi",
          [...args, "--non-interactive", "--color=never"],
          { cwd: programDir, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) => resolve({ code: error ? 1 : 0, output: stdout + stderr }),
        );
      });
    const succeeds = async (...args: string[]) => {
      const result = await pulumi(...args);
      // The command's first words only: `config set --secret` carries the API token.
      if (result.code !== 0)
        throw new Error(`pulumi ${args.slice(0, 2).join(" ")} failed:\n${result.output}`);
      return result.output;
    };
    await succeeds("stack", "init", "dev");
    await succeeds("config", "set", "proxmox:endpoint", sim.url);
    await succeeds("config", "set", "--secret", "proxmox:apiToken", sim.apiToken);
    await succeeds("config", "set", "proxmox:caCert", path.join(programDir, "ca.pem"));

    // The program's `half` VM is the only one on pve2: its seed upload fails after the clone,
    // which leaves the partial-create state this release writes.
    sim.faults.failRequests(
      { method: "POST", path: /^\/nodes\/pve2\/storage\/local\/upload$/, count: 100 },
      500,
      "error writing file: No space left on device",
    );
    const up = await pulumi("up", "--yes", "--skip-preview");
    if (up.code === 0) throw new Error("pulumi up succeeded, but the half VM's seed upload failed");
    const exported = await succeeds("stack", "export");
    const resources = (
      JSON.parse(exported) as { deployment: { resources?: ExportedResource[] } }
    ).deployment.resources?.filter((r) => r.type.endsWith(":ProxmoxVm"));
    const created = resources?.filter((r) => typeof r.outputs?.["vmid"] === "number") ?? [];
    if (created.length !== 2 || created.filter((r) => r.initErrors?.length).length !== 1) {
      throw new Error(
        `expected one complete and one partial VM in the state; up said:\n${up.output}`,
      );
    }
    fs.mkdirSync(dirs.out, { recursive: true });
    fs.writeFileSync(path.join(dirs.out, "stack.json"), exported);
    for (const resource of created) {
      const vmid = resource.outputs?.["vmid"] as number;
      // Gzipped: the seed ISO is mostly zeros, 360 KiB that base64 would make 480 KB of text.
      fs.writeFileSync(
        path.join(dirs.out, `vm-${vmid}.json.gz`),
        gzipSync(`${JSON.stringify(dumpVm(sim, vmid), null, 1)}\n`),
      );
    }
  } finally {
    await sim.close();
  }
}

/** The VM's record and every volume it owns or mounts (its seed ISO has no owner). */
function dumpVm(sim: ReleasedSimulator, vmid: number) {
  const vm = sim.model.vms.get(vmid);
  if (vm === undefined) throw new Error(`VM ${vmid} is in the state but not on the simulator`);
  const mounted = Object.values(vm.config).map((value) => String(value).split(",")[0]);
  const volumes = sim.model.storages.flatMap(({ storage }) =>
    sim.model
      .volumes(vm.node, storage)
      .filter((volume) => volume.vmid === vmid || mounted.includes(volume.volid))
      .map((volume) => ({ node: vm.node, volume: JSON.parse(JSON.stringify(volume)) as unknown })),
  );
  return { vm, volumes: volumes.map(base64Data) };
}

/** JSON.stringify writes a Buffer as {type, data: [bytes]}; the dump keeps bytes as base64. */
function base64Data(entry: { node: string; volume: unknown }) {
  const volume = entry.volume as Record<string, unknown>;
  const data = volume["data"] as { data: number[] } | undefined;
  return {
    node: entry.node,
    volume:
      data === undefined ? volume : { ...volume, data: Buffer.from(data.data).toString("base64") },
  };
}

const dirs = { release: releaseDir, workspace: workspaceDir, fixtures: fixturesDir };
main({ ...dirs, out: path.join(fixturesDir, label) }).catch((err: unknown) => {
  process.stderr.write(
    `capture-release-state: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
