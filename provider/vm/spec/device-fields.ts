/**
 * Devices the VM emulates beside its disks and NICs. PVE hot-plugs none of them
 * (qemu-server's `vmconfig_hotplug_pending` has no case for their keys), so a running VM takes a
 * change at its next reboot.
 */
import { z } from "zod";
import { canonical } from "../../inputs/canonical";
import { field } from "./field";
import { propertyString, text } from "./firmware";

/** qemu-server's `pve-qm-watchdog` format (`$watchdog_fmt`, PVE/QemuServer.pm). */
const watchdogSchema = z.strictObject({
  /** The emulated device; PVE's default (its format's `default_key`) is `i6300esb`. */
  model: z.enum(["i6300esb", "ib700"]).default("i6300esb"),
  /** What PVE does when the guest, once it armed the watchdog, stops feeding it. */
  action: z.enum(["reset", "shutdown", "poweroff", "pause", "debug", "none"]).optional(),
});
type Watchdog = z.output<typeof watchdogSchema>;

const formatWatchdog = (watchdog: Watchdog): string =>
  [`model=${watchdog.model}`, ...(watchdog.action ? [`action=${watchdog.action}`] : [])].join(",");

/** PVE's value in the input's terms: the model (its default when left out), the action if any. */
function parseWatchdog(value: string | undefined): Watchdog | undefined {
  if (value === undefined) return undefined;
  const parts = propertyString(value, "model");
  return {
    model: (parts["model"] ?? "i6300esb") as Watchdog["model"],
    ...(parts["action"] === undefined ? {} : { action: parts["action"] as Watchdog["action"] }),
  };
}

/** qemu-server's `pve-qm-rng` format (`$rng_fmt`, PVE/QemuServer/RNG.pm), in the input's terms. */
const rngSchema = z.strictObject({
  source: z.enum(["/dev/urandom", "/dev/random", "/dev/hwrng"]),
  /** Bytes of entropy per period; 0 lifts the limit. PVE's default is 1024. */
  maxBytes: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 (no limit) or more")
    .optional(),
  /** The period, in milliseconds, after which the quota resets. PVE's default is 1000. */
  periodMs: z.number().int("must be a whole number").min(1, "must be at least 1 ms").optional(),
});
type Rng = z.output<typeof rngSchema>;

const formatRng = (rng: Rng): string =>
  [
    `source=${rng.source}`,
    ...(rng.maxBytes === undefined ? [] : [`max_bytes=${rng.maxBytes}`]),
    ...(rng.periodMs === undefined ? [] : [`period=${rng.periodMs}`]),
  ].join(",");

function parseRng(value: string | undefined): Rng | undefined {
  if (value === undefined) return undefined;
  const parts = propertyString(value, "source");
  const number = (key: string) => (parts[key] === undefined ? undefined : Number(parts[key]));
  const maxBytes = number("max_bytes");
  const periodMs = number("period");
  return {
    source: parts["source"] as Rng["source"],
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(periodMs === undefined ? {} : { periodMs }),
  };
}

/** The limits PVE applies when rng0 leaves them out (`print_rng_device_commandline`). */
const withDefaults = (rng: Rng | undefined) =>
  rng === undefined ? undefined : { maxBytes: 1024, periodMs: 1000, ...rng };

/** qemu-server's `pve-qm-audio` format (`$audio_fmt`, PVE/QemuServer.pm) in the input's terms. */
const audioSchema = z.strictObject({
  device: z.enum(["ich9-intel-hda", "intel-hda", "AC97"]),
  /** The host side: SPICE (PVE's default) or none, a device the guest sees with no sound. */
  driver: z.enum(["spice", "none"]).default("spice"),
});
type Audio = z.output<typeof audioSchema>;

/** PVE's `audio0` in the input's terms, its driver's default filled in. */
function parseAudio(value: string | undefined): Audio | undefined {
  if (value === undefined) return undefined;
  const parts = propertyString(value, "device");
  return {
    device: parts["device"] as Audio["device"],
    driver: (parts["driver"] ?? "spice") as Audio["driver"],
  };
}

/** The devices, in the order the docs list them. */
export const DEVICE_FIELDS = {
  watchdog: field({
    doc:
      "An emulated watchdog, `{ model, action }`: once the guest arms it and stops feeding it, " +
      "PVE does `action`. A running VM takes a change at its next reboot.",
    docType:
      '{ model?: "i6300esb" | "ib700"; action?: "reset" | "shutdown" | "poweroff" | "pause" | "debug" | "none" }',
    schema: watchdogSchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.looseObject({}).optional(),
    config: {
      key: "watchdog",
      format: formatWatchdog,
      same: (current, wanted) =>
        canonical(parseWatchdog(text(current))) === canonical(parseWatchdog(String(wanted))),
    },
    readBack: {
      from: "vm",
      // Only what the program sets: an action PVE holds but the input leaves out is not drift.
      read: ({ config }, input) => {
        const now = parseWatchdog(text(config["watchdog"]));
        if (now === undefined) return undefined;
        return input.action === undefined ? { model: now.model } : now;
      },
      probe: ({ config }) => parseWatchdog(text(config["watchdog"])),
    },
    example: { valid: { model: "ib700", action: "reset" }, invalid: { action: "reboot" } },
  }),
  rng: field({
    doc:
      "A VirtIO random number generator fed from the host's `source`, at most `maxBytes` per " +
      "`periodMs` (PVE's defaults 1024 per 1000 ms; `maxBytes: 0` lifts the limit). A running " +
      "VM takes a change at its next reboot.",
    docType:
      '{ source: "/dev/urandom" | "/dev/random" | "/dev/hwrng"; maxBytes?: number; periodMs?: number }',
    schema: rngSchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.looseObject({}).optional(),
    config: {
      key: "rng0",
      format: formatRng,
      // PVE's defaults stand for a limit left out, on either side.
      same: (current, wanted) =>
        canonical(withDefaults(parseRng(text(current)))) ===
        canonical(withDefaults(parseRng(String(wanted)))),
    },
    readBack: {
      from: "vm",
      // Only what the program sets: a limit PVE holds but the input leaves out is not drift.
      read: ({ config }, input) => {
        const now = parseRng(text(config["rng0"]));
        if (now === undefined) return undefined;
        return {
          source: now.source,
          ...(input.maxBytes === undefined ? {} : { maxBytes: withDefaults(now)?.maxBytes }),
          ...(input.periodMs === undefined ? {} : { periodMs: withDefaults(now)?.periodMs }),
        };
      },
      probe: ({ config }) => parseRng(text(config["rng0"])),
    },
    example: {
      valid: { source: "/dev/urandom", maxBytes: 2048, periodMs: 1000 },
      invalid: { source: "/dev/zero" },
    },
  }),
  audio: field({
    doc:
      "An emulated sound card, `{ device, driver }`: the host side is SPICE (PVE's default) or " +
      "`none`. A running VM takes a change at its next reboot.",
    docType: '{ device: "ich9-intel-hda" | "intel-hda" | "AC97"; driver?: "spice" | "none" }',
    schema: audioSchema,
    mayBeUnknown: true,
    change: "reboot",
    stored: z.looseObject({}).optional(),
    config: {
      key: "audio0",
      format: (audio) => `device=${audio.device},driver=${audio.driver}`,
      same: (current, wanted) =>
        canonical(parseAudio(text(current))) === canonical(parseAudio(String(wanted))),
    },
    readBack: { from: "vm", read: ({ config }) => parseAudio(text(config["audio0"])) },
    example: { valid: { device: "ich9-intel-hda" }, invalid: { device: "sb16" } },
  }),
} as const;
