#!/usr/bin/env node
import { parseArgs } from "node:util";
import { conformanceMain } from "./conformance/command.js";
import { startSimulator } from "./index.js";
import { CONTENT_TYPES, DEFAULT_STORAGES } from "./model/defaults.js";
import type { StorageSeed } from "./model/types.js";
import type { PveVersion } from "./model/versions.js";
import { REALISTIC_TASK_MS } from "./options.js";

const USAGE = `pve-sim: a Proxmox VE API simulator (loopback only)

  --port <n>            listen port (default 8006; 0 = ephemeral)
  --host <addr>         listen address (default 127.0.0.1)
  --http                plain HTTP instead of HTTPS
  --state-file <path>   keep state across restarts (JSON)
  --ca-file <path>      write the generated CA certificate here
  --listing-lag-ms <n>  /cluster/resources lag (default 1000)
  --task-ms <n>         duration of every task (default: realistic per type)
  --guest-boot-ms <n>   delay until the guest agent answers (default 3000)
  --auth-delay-ms <n>   delay of 401 answers (default 3000, as PVE)
  --pve-version <v>     answer as PVE 7.4, 8.4 or 9.1 (default $PVE_SIM_VERSION, else 8.4)
  --api-workers <n>     requests each node serves at once; more queue (default 3, as PVE)
  --request-latency-ms <n>  time each request holds its node's worker (default 0)
  --task-jitter <f>     task and boot durations drawn from d × (1 ± f) (default 0.3)
  --no-templates        start without the two pre-made templates (a cluster nobody set up)
  --storage-bandwidth <storage>=<MiB/s>  share this bandwidth among the copies (full clones,
                        disk moves) running on a storage (repeatable; default: none, fixed durations)
  --storage-alloc-ms <n>  how long a volume allocation holds its storage's lock (default 0)
  --storage-content <storage>=<types>  a storage's content types, as \`pvesm set --content\`
                        sets them, e.g. local=iso,vztmpl,backup,import (repeatable)

  pve-sim conformance --help   record a real cluster and compare it with the simulator

Prints one JSON line when ready: {"url","caFile","apiToken","rootPassword","adminUrl"}.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      http: { type: "boolean" },
      "state-file": { type: "string" },
      "ca-file": { type: "string" },
      "listing-lag-ms": { type: "string" },
      "task-ms": { type: "string" },
      "guest-boot-ms": { type: "string" },
      "auth-delay-ms": { type: "string" },
      "pve-version": { type: "string" },
      "api-workers": { type: "string" },
      "request-latency-ms": { type: "string" },
      "task-jitter": { type: "string" },
      "no-templates": { type: "boolean" },
      "storage-content": { type: "string", multiple: true },
      "storage-bandwidth": { type: "string", multiple: true },
      "storage-alloc-ms": { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const taskMs = values["task-ms"] === undefined ? undefined : Number(values["task-ms"]);
  const sim = await startSimulator({
    port: Number(values.port ?? 8006),
    ...(values.host === undefined ? {} : { host: values.host }),
    tls: values.http !== true,
    ...(values["state-file"] === undefined ? {} : { stateFile: values["state-file"] }),
    ...(values["ca-file"] === undefined ? {} : { caFile: values["ca-file"] }),
    listingLagMs: Number(values["listing-lag-ms"] ?? 1000),
    guestBootMs: Number(values["guest-boot-ms"] ?? 3000),
    authFailureDelayMs: Number(values["auth-delay-ms"] ?? 3000),
    // An unknown version is refused by startSimulator, naming the versions it knows.
    ...(values["pve-version"] === undefined
      ? {}
      : { pveVersion: values["pve-version"] as PveVersion }),
    apiWorkers: Number(values["api-workers"] ?? 3),
    requestLatencyMs: Number(values["request-latency-ms"] ?? 0),
    taskJitter: Number(values["task-jitter"] ?? 0.3),
    ...(values["no-templates"] === true ? { templates: [] } : {}),
    storages: withContent(DEFAULT_STORAGES, values["storage-content"] ?? []),
    storageBandwidthMiBps: bandwidths(values["storage-bandwidth"] ?? []),
    storageAllocMs: Number(values["storage-alloc-ms"] ?? 0),
    ...(taskMs === undefined
      ? { taskDurationsMs: REALISTIC_TASK_MS, defaultTaskMs: 1000 }
      : { defaultTaskMs: taskMs }),
  });
  const stop = (): void => {
    // Running tasks are finished at once and the state file written before exit.
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`pve-sim: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  // Handlers go in before the ready line: a script may signal as soon as it reads it.
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  process.stdout.write(
    `${JSON.stringify({
      url: sim.url,
      caFile: values.http === true ? null : (values["ca-file"] ?? null),
      apiToken: sim.apiToken,
      rootPassword: sim.rootPassword,
      adminUrl: `${sim.url}/_sim`,
    })}\n`,
  );
}

/** `<storage>=<MiB/s>` settings as a map; a wrong one throws, naming it. */
function bandwidths(settings: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const setting of settings) {
    const [storage = "", mibps = ""] = setting.split("=", 2);
    const value = Number(mibps);
    if (!DEFAULT_STORAGES.some((s) => s.storage === storage) || !(value > 0)) {
      const known = DEFAULT_STORAGES.map((s) => s.storage).join(", ");
      throw new Error(
        `--storage-bandwidth ${setting}: expected <storage>=<MiB/s> with a storage of ${known}`,
      );
    }
    out[storage] = value;
  }
  return out;
}

/** The storages with each `<storage>=<type,type>` setting applied; a wrong one throws, naming it. */
function withContent(storages: readonly StorageSeed[], settings: readonly string[]): StorageSeed[] {
  const content = new Map<string, string[]>();
  for (const setting of settings) {
    const [storage = "", types = ""] = setting.split("=", 2);
    if (!storages.some((s) => s.storage === storage)) {
      const known = storages.map((s) => s.storage).join(", ");
      throw new Error(`--storage-content ${setting}: no storage '${storage}' (there are ${known})`);
    }
    const list = types.split(",").filter((type) => type !== "");
    const unknown = list.find((type) => !(CONTENT_TYPES as readonly string[]).includes(type));
    if (unknown !== undefined || list.length === 0) {
      throw new Error(
        `--storage-content ${setting}: content types are a comma-separated list of ${CONTENT_TYPES.join(", ")}`,
      );
    }
    content.set(storage, list);
  }
  return storages.map((s) => ({ ...s, content: content.get(s.storage) ?? s.content }));
}

const run: Promise<void> =
  process.argv[2] === "conformance"
    ? conformanceMain(process.argv.slice(3)).then((code) => process.exit(code))
    : main();
run.catch((err: unknown) => {
  process.stderr.write(`pve-sim: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
