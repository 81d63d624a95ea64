/** The VM's CPUs and memory. */
import { z } from "zod";
import {
  coresSchema,
  cpuSchema,
  formatCpu,
  formatMemory,
  memorySchema,
  probeCpu,
  probeMemory,
  readCpu,
  readMemory,
  sameCpuModel,
} from "./compute";
import { field, sameText } from "./field";
import { formatNuma, numaConflict, numaSchema, probeNuma, readNuma, sameNumaKey } from "./numa";

/** CPU and memory. */
export const COMPUTE_FIELDS = {
  cores: field({
    doc: "Virtual CPU cores, the shorthand of `cpu.cores` (set one of the two). A running VM takes the change at its next reboot.",
    docType: "number",
    schema: coresSchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.number().optional(),
    config: { key: "cores", format: (cores) => cores },
    // PVE's default when the key is absent.
    readBack: { from: "vm", read: ({ config }) => Number(config.cores ?? 1) },
    example: { valid: 4, invalid: 0 },
  }),
  memory: field({
    doc:
      "MiB, or `{ sizeMiB, balloonMiB, shares, hugepages }`. A running VM takes a new size at its " +
      "next reboot, unless `hotplug` has `memory` and `cpu.numa` is on; balloon and shares apply at once. " +
      "PVE lets only root@pam set `hugepages`.",
    docType: "number | MemoryArgs",
    schema: memorySchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z
      .union([
        z.number(),
        z.looseObject({
          sizeMiB: z.number(),
          balloonMiB: z.number().optional(),
          shares: z.number().optional(),
          hugepages: z.union([z.string(), z.number()]).optional(),
        }),
      ])
      .optional(),
    configKeys: { format: formatMemory },
    hotKeys: { memory: { hotplug: "memory", numa: true }, balloon: "always", shares: "always" },
    readBack: {
      from: "vm",
      read: ({ config }, input) => readMemory(config, input),
      probe: ({ config }) => probeMemory(config),
    },
    example: {
      valid: { sizeMiB: 4096, balloonMiB: 2048 },
      invalid: { sizeMiB: 2048, balloonMiB: 4096 },
    },
  }),
  cpu: field({
    doc:
      "`{ type, flags, sockets, cores, vcpus, numa, units, limit, affinity }`; set `cores` here or " +
      "as the `cores` shorthand, not both. A running VM takes a change at its next reboot, except " +
      "`vcpus` (with `cpu` in `hotplug`), `units` and `limit`, which apply at once. PVE lets only " +
      "root@pam set `affinity`.",
    docType: "CpuArgs",
    schema: cpuSchema,
    mayBeUnknown: true,
    change: "reboot",
    excludes: ["cores"],
    stored: z.looseObject({}).optional(),
    configKeys: {
      format: formatCpu,
      same: (key, current, wanted) =>
        key === "cpu" ? sameCpuModel(current, wanted) : sameText(current, wanted),
    },
    hotKeys: { vcpus: { hotplug: "cpu" }, cpuunits: "always", cpulimit: "always" },
    readBack: {
      from: "vm",
      read: ({ config }, input) => readCpu(config, input),
      probe: ({ config }) => probeCpu(config),
    },
    example: {
      valid: { type: "host", sockets: 1, cores: 4, vcpus: 2 },
      invalid: { cores: 2, sockets: 1, vcpus: 4 },
    },
  }),
  numa: field({
    doc:
      "The guest's NUMA nodes, `[{ cpus, memoryMiB, hostNodes?, policy? }]` (numa0…numa7); " +
      "turns NUMA on. The nodes' memory must add up to the VM's. A running VM takes a change at " +
      "its next reboot.",
    docType:
      '{ cpus: string; memoryMiB: number; hostNodes?: string; policy?: "preferred" | "bind" | "interleave" }[]',
    schema: numaSchema,
    mayBeUnknown: true,
    change: "reboot",
    conflict: numaConflict,
    stored: z.array(z.looseObject({})).optional(),
    configKeys: { format: formatNuma, same: sameNumaKey },
    ownsKeys: /^numa\d+$/,
    readBack: {
      from: "vm",
      read: ({ config }, input) => readNuma(config, input),
      probe: ({ config }) => probeNuma(config),
    },
    example: {
      valid: [{ cpus: "0-1", memoryMiB: 1024, hostNodes: "0", policy: "bind" }],
      invalid: [{ cpus: "0-1", memoryMiB: 1024, hostNodes: "0" }],
    },
  }),
} as const;
