import { z } from "zod";
import { PermanentError } from "../errors.js";
import { pathContext } from "./path-context.js";

/**
 * zod schemas for every PVE answer the client reads. Objects are loose (PVE adds fields in
 * minor releases), enums are left as strings (PVE's lists grow), and the Perl-scalar quirks are
 * absorbed here: numbers that arrive as strings, 0/1 booleans, `memory` as a property string.
 * Anything else surprising becomes a `BAD_RESPONSE` error that names the field.
 */

/** An integer that PVE may send as a JSON number or as a string of digits (e.g. nextid). */
const intish = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

/** PVE's booleans are 0/1 numbers; accept real booleans and "0"/"1" too. */
const flag = z.union([
  z.boolean(),
  z.literal(0).transform(() => false),
  z.literal(1).transform(() => true),
  z.literal("0").transform(() => false),
  z.literal("1").transform(() => true),
]);

const upid = z.string().startsWith("UPID:", "is not a UPID");

export const versionSchema = z.looseObject({
  version: z.string(),
  release: z.string(),
  repoid: z.string(),
});

export const permissionsSchema = z.record(z.string(), z.record(z.string(), z.number()));

export const clusterVmsSchema = z.array(
  z.looseObject({
    vmid: intish,
    node: z.string(),
    type: z.string(),
    name: z.string().optional(),
    status: z.string(),
    template: flag.optional(),
    lock: z.string().optional(),
    pool: z.string().optional(),
  }),
);

export const nextVmidSchema = intish;

export const nodesSchema = z.array(z.looseObject({ node: z.string(), status: z.string() }));

export const nodeStoragesSchema = z.array(
  z
    .looseObject({
      storage: z.string(),
      type: z.string(),
      content: z.string().default(""),
      shared: flag.default(false),
      active: flag.default(true),
      enabled: flag.default(true),
    })
    .transform((row) => ({
      ...row,
      content: row.content.split(",").filter((item) => item !== ""),
    })),
);

export const resourceMappingSchema = z.looseObject({
  map: z.array(z.string()).default([]),
  description: z.string().optional(),
});

export const nodeBridgesSchema = z.array(z.looseObject({ iface: z.string(), type: z.string() }));

/** `memory` is a property string since qemu-server 8.1 (`2048` or `current=2048,…`). */
function memoryMib(value: string | number): number | string {
  if (typeof value === "number") return value;
  const match = /^(?:current=)?(\d+)(?:,|$)/.exec(value);
  return match?.[1] === undefined ? value : Number(match[1]);
}

export const vmConfigSchema = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .transform((raw) => {
    const out: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(raw)) if (value !== null) out[key] = value;
    if (out["memory"] !== undefined && typeof out["memory"] !== "boolean") {
      out["memory"] = memoryMib(out["memory"]);
    }
    for (const key of ["cores", "sockets"]) {
      const value = out[key];
      if (typeof value === "string" && /^\d+$/.test(value)) out[key] = Number(value);
    }
    if (out["template"] !== undefined)
      out["template"] =
        out["template"] === 1 || out["template"] === true || out["template"] === "1";
    return out;
  });

/** `GET …/pending`: one row per key, its current value, its pending value or deletion. */
export const vmPendingSchema = z
  .array(
    z.looseObject({
      key: z.string(),
      value: z.union([z.string(), z.number()]).optional(),
      pending: z.union([z.string(), z.number()]).optional(),
      delete: z.union([z.number(), z.string()]).optional(),
    }),
  )
  .transform((rows) => {
    const current: Record<string, string | number> = {};
    const config: Record<string, string | number> = {};
    const pending: string[] = [];
    for (const row of rows) {
      if (row.value !== undefined) current[row.key] = row.value;
      const deleted = Number(row.delete ?? 0) > 0;
      if (deleted || row.pending !== undefined) pending.push(row.key);
      const now = row.pending ?? row.value;
      if (!deleted && now !== undefined) config[row.key] = now;
    }
    return {
      config: vmConfigSchema.parse(config),
      current: vmConfigSchema.parse(current),
      pending: pending.sort(),
    };
  });

/** What `status/current` and a `full=1` node listing row both report (qemu-server vmstatus). */
const liveStatusFields = {
  status: z.string(),
  qmpstatus: z.string().optional(),
  lock: z.string().optional(),
  name: z.string().optional(),
  uptime: z.number().optional(),
};

export const vmStatusSchema = z.looseObject({ ...liveStatusFields, agent: flag.optional() });

/**
 * `GET /nodes/{node}/qemu?full=1`. Rows are stripped to the status fields: a running VM's row
 * also carries block, balloon and NIC statistics that nobody here reads, and a node listing of
 * a hundred VMs should not keep them in memory.
 */
export const nodeVmsSchema = z.array(z.object({ vmid: intish, ...liveStatusFields }));

export const upidSchema = upid;
export const optionalUpidSchema = upid.nullable();
/** A synchronous call: PVE answers `{"data": null}`. */
export const nothingSchema = z.null().transform((): void => undefined);

const ipAddress = z.looseObject({
  "ip-address": z.string(),
  "ip-address-type": z.string(),
});

export const agentInterfacesSchema = z
  .looseObject({
    result: z.array(
      z.looseObject({
        name: z.string(),
        "hardware-address": z.string().optional(),
        "ip-addresses": z.array(ipAddress).default([]),
      }),
    ),
  })
  .transform(({ result }) =>
    result.map((nic) => ({
      name: nic.name,
      hardwareAddress: nic["hardware-address"],
      ipAddresses: nic["ip-addresses"].flatMap((ip) => {
        const type = ip["ip-address-type"];
        return type === "ipv4" || type === "ipv6"
          ? [{ address: ip["ip-address"], type: type as "ipv4" | "ipv6" }]
          : [];
      }),
    })),
  );

export const storageContentSchema = z.array(
  z.looseObject({
    volid: z.string(),
    content: z.string(),
    format: z.string().optional(),
    size: z.number().optional(),
  }),
);

export const taskStatusSchema = z.looseObject({
  upid,
  node: z.string(),
  status: z.string(),
  exitstatus: z.string().optional(),
});

/** `status` is absent from a finished task whose index line holds no exit status. */
export const nodeTasksSchema = z.array(z.looseObject({ upid, status: z.string().optional() }));

/**
 * `GET …/snapshot`: one row per snapshot, in PVE's hash order, plus the `current` row (the VM
 * itself, whose `parent` is where it descends from). Sorted oldest first here.
 */
export const vmSnapshotsSchema = z
  .array(
    z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      snaptime: intish.optional(),
      vmstate: flag.optional(),
      parent: z.string().optional(),
      snapstate: z.string().optional(),
    }),
  )
  .transform((rows) => ({
    snapshots: rows
      .filter((row) => row.name !== "current")
      .map((row) => ({ ...row, description: row.description ?? "", vmstate: row.vmstate ?? false }))
      .sort((a, b) => (a.snaptime ?? 0) - (b.snaptime ?? 0)),
    parent: rows.find((row) => row.name === "current")?.parent,
  }));

export const taskLogSchema = z.array(z.looseObject({ n: z.number(), t: z.string() }));

/** `data[3].vmid` from a zod path. */
function fieldName(path: readonly PropertyKey[]): string {
  let out = "data";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  return out;
}

/**
 * Parses the `data` member of a PVE answer. On a surprise, throws `BAD_RESPONSE` naming the
 * field and what was expected, never the received value (a config can hold secrets).
 */
export function parseData<S extends z.ZodType>(
  schema: S,
  envelope: unknown,
  method: string,
  path: string,
): z.output<S> {
  const data =
    typeof envelope === "object" && envelope !== null && "data" in envelope
      ? (envelope as { data: unknown }).data
      : undefined;
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 3).map((issue) => {
    const detail = issue.code === "invalid_type" ? `expected ${issue.expected}` : issue.message;
    return `${fieldName(issue.path)}: ${detail}`;
  });
  throw new PermanentError(
    "BAD_RESPONSE",
    `${method} ${path}: PVE answered with an unexpected shape (${issues.join("; ")}). This ` +
      `PVE version may be unsupported; please report it with the PVE version.`,
    { method, path, ...pathContext(path), status: 200 },
  );
}
