/**
 * A disk's I/O options (`aio`, `ioLimits`): the schema, the drive options they become and how
 * PVE's drive value reads back. qemu-server's drive format (`%drivedesc_base`, the
 * `$add_throttle_desc` entries in PVE/QemuServer/Drive.pm) names the limits `mbps_rd`, `iops_wr`,
 * their bursts `*_max` and the bursts' lengths `*_max_length`; a running VM takes a limit change
 * at once (`vmconfig_update_disk` in PVE/QemuServer.pm applies it through QMP
 * `block_set_io_throttle`), and an `aio` change at its next start (the same function skips it).
 */
import { z } from "zod";

export const AIO_MODES = ["io_uring", "native", "threads"] as const;

const mbps = z.number().positive("must be a rate in MB/s above 0");
const iops = z.number().int("must be a whole number of operations").positive("must be above 0");

/** Each limit of `ioLimits` and the drive option PVE stores it in. */
const LIMIT_KEYS = {
  readMBps: "mbps_rd",
  writeMBps: "mbps_wr",
  readIops: "iops_rd",
  writeIops: "iops_wr",
  readBurstMBps: "mbps_rd_max",
  writeBurstMBps: "mbps_wr_max",
  readBurstIops: "iops_rd_max",
  writeBurstIops: "iops_wr_max",
} as const;
type Limit = keyof typeof LIMIT_KEYS;

/** Each burst, the limit it raises, and the drive option that holds its length. */
const BURSTS = {
  readBurstMBps: ["readMBps", "bps_rd_max_length"],
  writeBurstMBps: ["writeMBps", "bps_wr_max_length"],
  readBurstIops: ["readIops", "iops_rd_max_length"],
  writeBurstIops: ["writeIops", "iops_wr_max_length"],
} as const;
type Burst = keyof typeof BURSTS;
const BURST_NAMES = Object.keys(BURSTS) as Burst[];

export const ioLimitsSchema = z
  .strictObject({
    readMBps: mbps.optional(),
    writeMBps: mbps.optional(),
    readIops: iops.optional(),
    writeIops: iops.optional(),
    /** A burst above the limit, for `burstSeconds` (PVE's `*_max`). */
    readBurstMBps: mbps.optional(),
    writeBurstMBps: mbps.optional(),
    readBurstIops: iops.optional(),
    writeBurstIops: iops.optional(),
    /** How long a burst may last, for each burst set (PVE's `*_max_length`, at least 1 s). */
    burstSeconds: z.number().int("must be whole seconds").min(1, "at least 1 second").optional(),
  })
  .superRefine((limits, ctx) => {
    for (const burst of BURST_NAMES) {
      const value = limits[burst];
      if (value === undefined) continue;
      const base = limits[BURSTS[burst][0]];
      // parse_drive refuses a `*_max` without its limit; QEMU refuses a burst below it.
      if (base === undefined)
        ctx.addIssue({ code: "custom", path: [burst], message: `needs ${BURSTS[burst][0]} too` });
      else if (value < base)
        ctx.addIssue({
          code: "custom",
          path: [burst],
          message: `must be at least ${BURSTS[burst][0]} (${base})`,
        });
    }
    if (limits.burstSeconds !== undefined && BURST_NAMES.every((b) => limits[b] === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["burstSeconds"],
        message: "needs a burst (readBurstMBps, writeBurstMBps, readBurstIops or writeBurstIops)",
      });
  });

export type IoLimits = z.output<typeof ioLimitsSchema>;

/** The drive options `ioLimits` owns: each limit, burst and burst length. */
export const IO_LIMIT_OPTIONS: readonly string[] = [
  ...Object.values(LIMIT_KEYS),
  ...BURST_NAMES.map((burst) => BURSTS[burst][1]),
];

/** The drive options `ioLimits` wants: a limit left out is no option (PVE: no limit). */
export function formatIoLimits(limits: IoLimits): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, key] of Object.entries(LIMIT_KEYS)) {
    const value = limits[name as Limit];
    if (value !== undefined) out[key] = String(value);
  }
  if (limits.burstSeconds !== undefined)
    for (const burst of BURST_NAMES)
      if (limits[burst] !== undefined) out[BURSTS[burst][1]] = String(limits.burstSeconds);
  return out;
}

/** `ioLimits` as the drive holds them; a burst length is read from the first burst that has one. */
export function readIoLimits(option: (key: string) => string | undefined): IoLimits {
  const out: Record<string, number> = {};
  for (const [name, key] of Object.entries(LIMIT_KEYS)) {
    const text = option(key);
    if (text !== undefined) out[name] = Number(text);
  }
  const length = BURST_NAMES.map((burst) => option(BURSTS[burst][1])).find((t) => t !== undefined);
  if (length !== undefined) out["burstSeconds"] = Number(length);
  return out as IoLimits;
}
