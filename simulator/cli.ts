#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startSimulator } from "./index.js";
import type { PveVersion } from "./model/versions.js";
import type { TaskType } from "./options.js";

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

Prints one JSON line when ready: {"url","caFile","apiToken","rootPassword","adminUrl"}.`;

/** Durations that feel like a small real host, used unless --task-ms overrides them all. */
const REALISTIC: Partial<Record<TaskType, number>> = {
  qmclone: 3000,
  qmstart: 1500,
  qmstop: 1000,
  qmshutdown: 2000,
  qmreboot: 2000,
  qmdestroy: 1000,
  qmconfig: 300,
  qmigrate: 3000,
  resize: 500,
  imgcopy: 500,
  imgdel: 300,
};

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
    ...(taskMs === undefined
      ? { taskDurationsMs: REALISTIC, defaultTaskMs: 1000 }
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

main().catch((err: unknown) => {
  process.stderr.write(`pve-sim: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
