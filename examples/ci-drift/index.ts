/**
 * A drift check for CI: `pulumi preview --refresh` on a stack through the automation API.
 *
 *   node bin/index.js --dir ../single-vm --stack dev [--report drift.json]
 *
 * Exit code 0 when Proxmox matches the program, 2 when something drifted (each resource and
 * property is printed, live value → desired value), 1 on any error. The engine's progress goes
 * to stderr, the summary to stdout. The stack's backend and secrets provider come from the
 * environment as for the CLI (PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE, ...).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import {
  LocalWorkspace,
  type EngineEvent,
  type OpType,
  type StepEventMetadata,
} from "@pulumi/pulumi/automation";

export interface DriftedProperty {
  readonly path: string;
  readonly kind: string;
  /** The value Proxmox reports (the refreshed state). */
  readonly live: unknown;
  /** The value the program asks for. */
  readonly desired: unknown;
}

export interface DriftedResource {
  readonly urn: string;
  readonly type: string;
  readonly name: string;
  /** What `pulumi up` would do about it: update, replace, create, delete, ... */
  readonly op: OpType;
  readonly properties: DriftedProperty[];
}

/** Steps that change nothing in the cloud. */
const QUIET_OPS: readonly OpType[] = ["same", "read", "refresh"];

/** `a.b[0].c` → the value at that property path, or undefined. */
function valueAt(root: unknown, propertyPath: string): unknown {
  const keys = propertyPath.match(/[^.[\]]+/g) ?? [];
  let value: unknown = root;
  for (const key of keys) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** JSON with sorted keys, so that two equal values print the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * The properties that differ. The engine names them when the provider reports a detailed diff;
 * a dynamic provider often reports only "changed", so then each checked input is compared with
 * its refreshed (live) value.
 */
function driftedProperties(step: StepEventMetadata): DriftedProperty[] {
  const live = step.old?.outputs ?? {};
  const desired = step.new?.inputs ?? {};
  const named = Object.keys(step.detailedDiff ?? {});
  const paths =
    named.length > 0
      ? named
      : (step.diffs ?? []).length > 0
        ? (step.diffs ?? [])
        : Object.keys(desired).filter(
            (key) => key !== "__provider" && canonical(desired[key]) !== canonical(live[key]),
          );
  return paths.map((p) => ({
    path: p,
    kind: step.detailedDiff?.[p]?.diffKind ?? "update",
    live: valueAt(live, p),
    desired: valueAt(desired, p),
  }));
}

/** Collects each step that would change a resource from the engine's event stream. */
function collect(drifted: DriftedResource[]) {
  return (event: EngineEvent): void => {
    const step = event.resourcePreEvent?.metadata;
    if (!step || QUIET_OPS.includes(step.op)) return;
    drifted.push({
      urn: step.urn,
      type: step.type,
      name: step.urn.split("::").pop() ?? step.urn,
      op: step.op,
      properties: driftedProperties(step),
    });
  };
}

function show(value: unknown): string {
  return value === undefined ? "(none)" : JSON.stringify(value);
}

export async function checkDrift(workDir: string, stackName: string): Promise<DriftedResource[]> {
  const stack = await LocalWorkspace.createOrSelectStack({ workDir, stackName });
  const drifted: DriftedResource[] = [];
  // `expectNoChanges: true` would make a drift an error, indistinguishable from a failure;
  // reading the events tells the two apart and says what drifted.
  await stack.preview({
    refresh: true,
    color: "never",
    onEvent: collect(drifted),
    onOutput: (line) => process.stderr.write(line),
  });
  return drifted;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      dir: { type: "string", default: "../single-vm" },
      stack: { type: "string", default: "dev" },
      report: { type: "string" },
    },
  });
  const workDir = path.resolve(values.dir);
  const drifted = await checkDrift(workDir, values.stack);
  if (values.report) {
    fs.writeFileSync(values.report, JSON.stringify({ stack: values.stack, drifted }, null, 2));
  }
  if (drifted.length === 0) {
    console.log(`drift check: stack ${values.stack} matches Proxmox`);
    return 0;
  }
  console.log(`drift check: ${drifted.length} resource(s) of stack ${values.stack} drifted`);
  for (const resource of drifted) {
    console.log(`  ${resource.op} ${resource.type} ${resource.name}`);
    for (const p of resource.properties) {
      console.log(`      ${p.path}: ${show(p.live)} → ${show(p.desired)}`);
    }
  }
  return 2;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`drift check failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
