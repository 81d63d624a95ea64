/**
 * `pve-sim conformance` arguments: every problem is named before anything is sent, and a
 * password may come from the environment so it stays out of the shell history.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runConformance, type ConformanceOptions } from "./run.js";

export const CONFORMANCE_USAGE = `pve-sim conformance: record a real cluster's answers to a fixed, safe scenario and compare
them with this simulator's (same release). Clones ONE VM from --template into --vmid-range,
configures, resizes, starts, stops and deletes it; never touches a VMID outside the range.

  --endpoint URL            https://pve.example.com:8006
  --token T                 user@realm!name=secret   (or --username U --password P,
  --username U              or PROXMOX_VE_PASSWORD in the environment)
  --password P
  --ca-cert FILE | --insecure
  --node N                  the node to clone on (the template's node)
  --template VMID           a template on that node
  --vmid-range A-B          the VMIDs the scenario may use
  --out FILE                write the redacted report (requests, answers, differences) as JSON

Exit 0: no differences; 1: differences (listed); 2: the scenario could not run.`;

export function parseConformanceArgs(argv: readonly string[]): ConformanceOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      endpoint: { type: "string" },
      token: { type: "string" },
      username: { type: "string" },
      password: { type: "string" },
      "ca-cert": { type: "string" },
      insecure: { type: "boolean" },
      node: { type: "string" },
      template: { type: "string" },
      "vmid-range": { type: "string" },
      out: { type: "string" },
    },
  });
  const need = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== "string" || value === "") throw new Error(`--${name} is required`);
    return value;
  };
  const endpoint = need("endpoint").replace(/\/+$/, "");
  const password = values.password ?? process.env["PROXMOX_VE_PASSWORD"];
  if (values.token !== undefined && values.username !== undefined) {
    throw new Error("give --token or --username/--password, not both");
  }
  if (values.token === undefined && (values.username === undefined || password === undefined)) {
    throw new Error("--token, or --username with --password (or PROXMOX_VE_PASSWORD), is required");
  }
  const range = /^(\d+)-(\d+)$/.exec(need("vmid-range"));
  const min = Number(range?.[1]);
  const max = Number(range?.[2]);
  if (range === null || min < 100 || max < min) {
    throw new Error(`--vmid-range ${values["vmid-range"]}: expected A-B with 100 <= A <= B`);
  }
  const template = Number(need("template"));
  if (!Number.isInteger(template) || template < 100)
    throw new Error(`--template ${values.template}: expected a VMID`);
  if (template >= min && template <= max) {
    throw new Error(
      `--template ${template} lies inside --vmid-range ${min}-${max}: the scenario would write to it`,
    );
  }
  return {
    endpoint,
    login:
      values.token !== undefined
        ? { kind: "token", token: values.token }
        : { kind: "password", username: values.username ?? "", password: password ?? "" },
    caCert: values["ca-cert"] === undefined ? undefined : readFileSync(values["ca-cert"], "utf8"),
    insecure: values.insecure === true,
    node: need("node"),
    template,
    range: { min, max },
    out: values.out,
  };
}

/** The subcommand's main: parses, runs, prints; resolves to the exit code. */
export async function conformanceMain(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help")) {
    process.stdout.write(`${CONFORMANCE_USAGE}\n`);
    return 0;
  }
  let options: ConformanceOptions;
  try {
    options = parseConformanceArgs(argv);
  } catch (err) {
    process.stderr.write(
      `pve-sim conformance: ${err instanceof Error ? err.message : String(err)}\n\n${CONFORMANCE_USAGE}\n`,
    );
    return 2;
  }
  const { exitCode } = await runConformance(options, (line) => process.stdout.write(`${line}\n`));
  return exitCode;
}
