/**
 * `pve-sim conformance`: runs the fixed scenario on a real cluster, then on an in-process
 * simulator of the same release, and prints where the simulator answers otherwise. Exit 0: no
 * differences; 1: differences; 2: the scenario could not run on the cluster (the report says
 * why, and whether its VM was cleaned up).
 */
import { writeFileSync } from "node:fs";
import { startSimulator } from "../index.js";
import { PVE_VERSIONS, type PveVersion } from "../model/versions.js";
import { ConformanceClient, type Exchange, type Login } from "./client.js";
import { compareRuns, redact, type Secrets } from "./compare.js";
import { runScenario, SCENARIO_VM_NAME, type ScenarioResult } from "./scenario.js";

export interface ConformanceOptions {
  readonly endpoint: string;
  readonly login: Login;
  readonly caCert?: string | undefined;
  readonly insecure?: boolean | undefined;
  readonly node: string;
  readonly template: number;
  readonly range: { readonly min: number; readonly max: number };
  readonly out?: string | undefined;
  readonly taskTimeoutMs?: number | undefined;
}

export interface RunRecord {
  readonly failure: string | undefined;
  readonly leftVm: boolean;
  readonly exchanges: readonly Exchange[];
}

export interface ConformanceReport {
  readonly pveRelease: string;
  readonly simulatorProfile: PveVersion;
  readonly cluster: RunRecord;
  readonly simulator: RunRecord;
  readonly differences: readonly string[];
}

export async function runConformance(
  options: ConformanceOptions,
  print: (line: string) => void,
): Promise<{ exitCode: number; report: ConformanceReport }> {
  const taskTimeoutMs = options.taskTimeoutMs ?? 600_000;
  const cluster = await record(options, {
    node: options.node,
    template: options.template,
    taskTimeoutMs,
  });
  const release = releaseOf(cluster.exchanges);
  const profile = profileFor(release);
  print(`cluster: PVE ${release || "(unknown release)"}; simulator profile ${profile}`);

  const sim = await startSimulator({
    port: 0,
    pveVersion: profile,
    defaultTaskMs: 50,
    taskJitter: 0,
    guestBootMs: 200,
    listingLagMs: 0,
    authFailureDelayMs: 0,
  });
  let simulated: RunRecord;
  try {
    const template =
      sim.model.vms.get(9000) === undefined ? ([...sim.model.vms.keys()][0] ?? 9000) : 9000;
    simulated = await record(
      {
        ...options,
        endpoint: sim.url,
        caCert: sim.caCertPem,
        insecure: false,
        login:
          options.login.kind === "token"
            ? { kind: "token", token: sim.apiToken }
            : { kind: "password", username: "root@pam", password: sim.rootPassword },
      },
      { node: sim.model.vms.get(template)?.node ?? "pve1", template, taskTimeoutMs },
      [
        [sim.apiToken.split("=")[1] ?? "", "<secret>"],
        [sim.rootPassword, "<password>"],
      ],
    );
  } finally {
    await sim.close();
  }

  const differences = compareRuns(cluster.exchanges, simulated.exchanges);
  const report: ConformanceReport = {
    pveRelease: release,
    simulatorProfile: profile,
    cluster,
    simulator: simulated,
    differences,
  };
  if (options.out !== undefined) writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  for (const line of differences) print(`  ${line}`);
  print(differences.length === 0 ? "no differences" : `${differences.length} difference(s)`);
  if (cluster.failure !== undefined) {
    print(`the scenario failed on the cluster: ${cluster.failure}`);
    print(
      cluster.leftVm
        ? `its VM could NOT be deleted: delete it by hand (its name is ${SCENARIO_VM_NAME})`
        : "nothing of the scenario is left on the cluster",
    );
    return { exitCode: 2, report };
  }
  return { exitCode: differences.length === 0 ? 0 : 1, report };
}

/** Runs the scenario against one endpoint and returns its redacted record. */
async function record(
  options: ConformanceOptions,
  target: { node: string; template: number; taskTimeoutMs: number },
  extraSecrets: readonly (readonly [string, string])[] = [],
): Promise<RunRecord> {
  const client = new ConformanceClient({
    endpoint: options.endpoint,
    login: options.login,
    caCert: options.caCert,
    insecure: options.insecure,
    range: options.range,
    readOnly: [target.template],
  });
  let result: ScenarioResult;
  try {
    await client.login();
    result = await runScenario(client, { ...target, range: options.range });
  } catch (err) {
    result = {
      failure: err instanceof Error ? err.message : String(err),
      vmid: undefined,
      leftVm: false,
    };
  } finally {
    await client.close();
  }
  const secrets: Secrets = {
    strings: [...secretsOf(options, client.exchanges, target.node), ...extraSecrets],
    words: [
      ...(result.vmid === undefined ? [] : [[String(result.vmid), "<vmid>"] as const]),
      [String(target.template), "<template>"],
    ],
  };
  return {
    failure:
      result.failure === undefined
        ? undefined
        : redact({ ...blank, error: result.failure }, secrets).error,
    leftVm: result.leftVm,
    exchanges: client.exchanges.map((e) => redact(e, secrets)),
  };
}

const blank: Exchange = {
  step: "",
  method: "",
  path: "",
  params: {},
  status: 0,
  data: null,
  error: undefined,
};

/** What never leaves the machine: the login's secrets, the ticket, the host and node names. */
function secretsOf(
  options: ConformanceOptions,
  exchanges: readonly Exchange[],
  node: string,
): (readonly [string, string])[] {
  const login = exchanges.find((e) => e.step === "login")?.data as
    { ticket?: string; CSRFPreventionToken?: string } | undefined;
  const nodes = (exchanges.find((e) => e.step === "nodes")?.data ?? []) as { node?: string }[];
  const others = nodes.map((n) => n.node ?? "").filter((n) => n !== "" && n !== node);
  return [
    [
      options.login.kind === "token"
        ? (options.login.token.split("=")[1] ?? "")
        : options.login.password,
      "<secret>",
    ],
    [login?.ticket ?? "", "<ticket>"],
    [login?.CSRFPreventionToken ?? "", "<csrf>"],
    [new URL(options.endpoint).hostname, "<host>"],
    [node, "<node>"],
    ...others.map((n, i) => [n, `<node-${i + 2}>`] as const),
  ];
}

const releaseOf = (exchanges: readonly Exchange[]): string =>
  String(
    (exchanges.find((e) => e.step === "version")?.data as { release?: unknown } | null)?.release ??
      "",
  );

/** The modelled release closest to the cluster's: the same minor, else the same major, else 8.4. */
function profileFor(release: string): PveVersion {
  const exact = PVE_VERSIONS.find((v) => v === release);
  if (exact !== undefined) return exact;
  return PVE_VERSIONS.find((v) => v.split(".")[0] === release.split(".")[0]) ?? "8.4";
}
