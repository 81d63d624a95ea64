/**
 * The VM's CPU and memory as the user writes them (`cpu`, `memory`), the PVE keys they become
 * and how those keys read back. PVE's defaults stand in for an absent key, so a VM cloned from a
 * template that never set `sockets` reads as 1 socket, as PVE starts it.
 */
import { z } from "zod";
import type { VmConfig } from "../../pve/api/proxmox-api";
import { kindOf } from "../../inputs/unknown";

/** A whole number with a unit, whose type error says what to write, e.g. `memory: "lots"`. */
export const wholeNumber = (what: string) =>
  z
    .number({ error: (issue) => `must be ${what}, got ${kindOf(issue.input)}` })
    .int(`must be a whole ${what.replace(/^an? /, "")}`);

export const coresSchema = wholeNumber("a number of cores, e.g. 2")
  .min(1, "at least 1 core")
  .max(512, "at most 512");

export const memoryMiBSchema = wholeNumber("a number of MiB, e.g. 2048")
  .min(16, "memory is in MiB, at least 16")
  .max(16 * 1024 * 1024, "memory is in MiB, at most 16777216");

export const cpuSchema = z
  .strictObject({
    /** PVE's CPU model (`host`, `x86-64-v2-AES`, `kvm64`…) or `custom-<name>`. */
    type: z
      .string()
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, "must be a CPU model, e.g. host or x86-64-v2-AES")
      .optional(),
    /** CPU flags on (`+aes`) or off (`-pcid`), on top of the model's. */
    flags: z
      .array(
        z.string().regex(/^[+-][a-zA-Z0-9_.-]+$/, 'must be a CPU flag with + or -, e.g. "+aes"'),
      )
      .optional(),
    sockets: wholeNumber("a number of sockets, e.g. 1").min(1, "at least 1").max(16).optional(),
    cores: coresSchema.optional(),
    /** vCPUs plugged at boot, up to sockets × cores; more are hot-plugged with `cpu` in `hotplug`. */
    vcpus: wholeNumber("a number of vCPUs, e.g. 2").min(1, "at least 1").optional(),
    numa: z.boolean().optional(),
    /**
     * The CPU weight against other VMs (PVE's `cpuunits`). PVE's schema goes to 262144, but
     * clamp_cpu_shares (pve-common PVE/CGroup.pm) stores at most 10000 on cgroup v2, PVE's
     * hierarchy since 7.0: a larger value would read back as drift forever.
     */
    units: wholeNumber("a CPU weight, e.g. 100")
      .min(1, "at least 1")
      .max(10_000, "at most 10000: PVE clamps a larger weight to 10000 on cgroup v2")
      .optional(),
    /** The host CPUs the VM's threads may run on, e.g. `0-3,8` (PVE's `affinity`, root@pam only). */
    affinity: z
      .string()
      .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'must be host CPU numbers and ranges, e.g. "0-3,8"')
      .refine((set) => set.split(",").every(ascending), "each range must go up, e.g. 2-5")
      .optional(),
    /** At most this many host CPUs' time, 0 for none (PVE's `cpulimit`). */
    limit: z.number().min(0, "at least 0 (no limit)").max(128).optional(),
  })
  .refine((cpu) => cpu.flags === undefined || cpu.type !== undefined, {
    path: ["flags"],
    message: "needs cpu.type too: PVE writes flags and model as one value",
  })
  .refine(
    (cpu) =>
      cpu.vcpus === undefined ||
      cpu.sockets === undefined ||
      cpu.cores === undefined ||
      cpu.vcpus <= cpu.sockets * cpu.cores,
    { path: ["vcpus"], message: "must not exceed sockets × cores" },
  );

export type Cpu = z.output<typeof cpuSchema>;

/** `2-5` goes up; `5-2` does not (pve-common's pve-cpuset format refuses it). */
function ascending(range: string): boolean {
  const [from = 0, to = from] = range.split("-").map(Number);
  // Text that is no range at all is the pattern's to refuse.
  return !(from > to);
}

const memoryObject = z
  .strictObject({
    sizeMiB: memoryMiBSchema,
    /** The balloon's floor in MiB, 0 to remove the balloon device (default: no ballooning). */
    balloonMiB: wholeNumber("a number of MiB, e.g. 1024").min(0).optional(),
    /** Weight for PVE's auto-ballooning against other VMs (PVE's default 1000; 0 turns it off). */
    shares: wholeNumber("a weight, e.g. 1000").min(0).max(50_000).optional(),
    hugepages: z
      .union([z.literal("any"), z.literal(2), z.literal(1024)], {
        error: 'must be "any", 2 or 1024 (MiB pages)',
      })
      .optional(),
  })
  .refine((m) => m.balloonMiB === undefined || m.balloonMiB <= m.sizeMiB, {
    path: ["balloonMiB"],
    message: "must not exceed sizeMiB",
  });

/** `memory`: a number of MiB (the shorthand) or the full form. */
export const memorySchema = z.union([memoryMiBSchema, memoryObject], {
  // A number is the shorthand: its own rule says what is wrong (not whole, too small).
  error: (issue) =>
    (typeof issue.input === "number"
      ? memoryMiBSchema.safeParse(issue.input).error?.issues[0]?.message
      : undefined) ??
    `must be a number of MiB, e.g. 2048, or { sizeMiB, balloonMiB?, shares?, hugepages? }, got ${kindOf(issue.input)}`,
});

export type Memory = z.output<typeof memorySchema>;

const flag = (on: boolean | undefined) => (on === undefined ? undefined : on ? 1 : 0);

/** The PVE keys of `cpu`, only those the program sets. */
export function formatCpu(cpu: Cpu): Record<string, string | number> {
  return defined({
    cpu: cpu.type === undefined ? undefined : cpuModel(cpu.type, cpu.flags),
    sockets: cpu.sockets,
    cores: cpu.cores,
    vcpus: cpu.vcpus,
    numa: flag(cpu.numa),
    cpuunits: cpu.units,
    cpulimit: cpu.limit,
    affinity: cpu.affinity,
  });
}

const cpuModel = (type: string, flags: readonly string[] | undefined) =>
  flags === undefined || flags.length === 0 ? type : `${type},flags=${flags.join(";")}`;

/** PVE's `cpu` value, e.g. `host,flags=+aes;-pcid` or `cputype=host`. */
export function parseCpuModel(value: unknown): { type: string; flags: string[] } | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const [first = "", ...rest] = value.split(",");
  const options = Object.fromEntries(rest.map((part) => part.split("=", 2)));
  const flags = typeof options["flags"] === "string" ? options["flags"].split(";") : [];
  return { type: first.replace(/^cputype=/, ""), flags: flags.filter((f) => f !== "") };
}

/** Whether PVE's `cpu` says the same model and flags (flags in any order). */
export function sameCpuModel(current: unknown, wanted: string | number): boolean {
  const now = parseCpuModel(current);
  const want = parseCpuModel(String(wanted));
  return (
    now !== undefined &&
    want !== undefined &&
    now.type === want.type &&
    [...now.flags].sort().join(";") === [...want.flags].sort().join(";")
  );
}

/** `cpu` as the VM holds it, the sub-fields the input sets only. */
export function readCpu(config: VmConfig, input: Cpu): Cpu {
  const model = parseCpuModel(config.cpu);
  const sockets = Number(config.sockets ?? 1);
  const cores = Number(config.cores ?? 1);
  const observed: Record<keyof Cpu, unknown> = {
    // PVE starts a VM without a `cpu` key on kvm64.
    type: model?.type ?? "kvm64",
    flags: model?.flags ?? [],
    sockets,
    cores,
    // Absent (or 0): every vCPU of sockets × cores is plugged.
    vcpus: Number(config["vcpus"] ?? 0) || sockets * cores,
    numa: Number(config["numa"] ?? 0) === 1,
    // The default depends on the host's cgroup version: absent is not a value to compare.
    units: config["cpuunits"] === undefined ? undefined : Number(config["cpuunits"]),
    limit: Number(config["cpulimit"] ?? 0),
    affinity: config["affinity"] === undefined ? undefined : String(config["affinity"]),
  };
  return pick(observed, input) as Cpu;
}

/**
 * `cpu` asking for the sub-fields the VM's config sets; undefined when it sets nothing beyond
 * `cores` (the `cores` shorthand says that).
 */
export function probeCpu(config: VmConfig): Cpu | undefined {
  const model = parseCpuModel(config.cpu);
  const probe: Record<string, unknown> = {
    ...(model === undefined ? {} : { type: model.type }),
    ...(model !== undefined && model.flags.length > 0 ? { flags: model.flags } : {}),
  };
  for (const [name, key] of CPU_KEYS) if (config[key] !== undefined) probe[name] = 0;
  const beyondCores = Object.keys(probe).some((name) => name !== "cores");
  return beyondCores ? (probe as Cpu) : undefined;
}

/** The `cpu` sub-fields besides the model, and the PVE key each is written to. */
const CPU_KEYS = [
  ["sockets", "sockets"],
  ["cores", "cores"],
  ["vcpus", "vcpus"],
  ["numa", "numa"],
  ["units", "cpuunits"],
  ["limit", "cpulimit"],
  ["affinity", "affinity"],
] as const;

/** `memory` asking for what the VM's config sets: the MiB alone, or the full form. */
export function probeMemory(config: VmConfig): Memory | undefined {
  const extras = MEMORY_KEYS.filter(([, key]) => config[key] !== undefined);
  if (config.memory === undefined && extras.length === 0) return undefined;
  if (extras.length === 0) return 0;
  return Object.fromEntries([["sizeMiB", 0], ...extras.map(([name]) => [name, 0])]) as Memory;
}

/** The full form's sub-fields besides the size, and the PVE key each is written to. */
const MEMORY_KEYS = [
  ["balloonMiB", "balloon"],
  ["shares", "shares"],
  ["hugepages", "hugepages"],
] as const;

/** The PVE keys of `memory`, only those the program sets. */
export function formatMemory(memory: Memory): Record<string, string | number> {
  if (typeof memory === "number") return { memory };
  return defined({
    memory: memory.sizeMiB,
    balloon: memory.balloonMiB,
    shares: memory.shares,
    hugepages: memory.hugepages === undefined ? undefined : String(memory.hugepages),
  });
}

/** `memory` as the VM holds it, in the input's form, the sub-fields it sets only. */
export function readMemory(config: VmConfig, input: Memory): Memory {
  // PVE's default when the key is absent; responses.ts reads `current=2048` as 2048.
  const sizeMiB = Number(config.memory ?? 512);
  if (typeof input === "number") return sizeMiB;
  const hugepages = config["hugepages"];
  const observed: Record<string, unknown> = {
    sizeMiB,
    balloonMiB: config["balloon"] === undefined ? undefined : Number(config["balloon"]),
    shares: Number(config["shares"] ?? 1000),
    hugepages: hugepages === "any" || hugepages === undefined ? hugepages : Number(hugepages),
  };
  return pick(observed, input) as Memory;
}

function defined(
  values: Readonly<Record<string, string | number | undefined>>,
): Record<string, string | number> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | number
  >;
}

/** The observed values of the keys the input sets (the template's own settings are not drift). */
function pick(observed: Readonly<Record<string, unknown>>, input: object): Record<string, unknown> {
  return Object.fromEntries(Object.keys(input).map((key) => [key, observed[key]]));
}
