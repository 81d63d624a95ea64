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
    },
    example: { valid: { model: "ib700", action: "reset" }, invalid: { action: "reboot" } },
  }),
} as const;
