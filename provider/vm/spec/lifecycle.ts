/**
 * The options that say how PVE treats the VM rather than what it runs on: the hot-plug features,
 * the start at boot and its order, the protection against removal (each one PVE key), and the
 * resource pool, which PVE keeps in user.cfg rather than in the VM's config.
 */
import { z } from "zod";
import type { VmConfig } from "../../pve/api/proxmox-api";
import { wholeNumber } from "./compute";

export const HOTPLUG_FEATURES = ["network", "disk", "cpu", "memory", "usb", "cloudinit"] as const;
export type HotplugFeature = (typeof HOTPLUG_FEATURES)[number];

/** PVE's `hotplug` when the key is absent (or `1`, its alias). */
export const DEFAULT_HOTPLUG: readonly HotplugFeature[] = ["network", "disk", "usb"];

export const hotplugSchema = z.array(
  z.enum(HOTPLUG_FEATURES, {
    error: `must be one of ${HOTPLUG_FEATURES.join(", ")}`,
  }),
);

/** PVE's value: the features comma-separated, `0` for none. */
export function formatHotplug(features: readonly string[]): string {
  return features.length === 0 ? "0" : [...new Set(features)].join(",");
}

/** The features PVE's `hotplug` value enables, sorted. */
export function parseHotplug(value: unknown): string[] {
  const text = value === undefined ? "1" : String(value).trim();
  if (text === "0") return [];
  if (text === "1") return normalizeHotplug(DEFAULT_HOTPLUG);
  return normalizeHotplug(text.split(","));
}

/** Sorted and unique: PVE reads the list as a set. */
export function normalizeHotplug(features: readonly string[]): string[] {
  return [...new Set(features.map((f) => f.trim()).filter((f) => f !== ""))].sort();
}

export const startupSchema = z
  .strictObject({
    /** Lower starts first and stops last. */
    order: wholeNumber("a start position, e.g. 1").min(0).optional(),
    /** Seconds to wait after this VM started before starting the next. */
    up: wholeNumber("a number of seconds, e.g. 30").min(0).optional(),
    /** Seconds to wait for this VM to shut down before stopping it. */
    down: wholeNumber("a number of seconds, e.g. 60").min(0).optional(),
  })
  .refine((s) => Object.keys(s).length > 0, "must set order, up or down");

export type Startup = z.output<typeof startupSchema>;

/** PVE's `startup` value, e.g. `order=1,up=30`. */
export function formatStartup(startup: Startup): string {
  return (["order", "up", "down"] as const)
    .filter((key) => startup[key] !== undefined)
    .map((key) => `${key}=${startup[key]}`)
    .join(",");
}

/** PVE's `startup` value as the input's object (PVE also accepts a bare order: `3`). */
export function parseStartup(value: unknown): Startup | undefined {
  if (value === undefined || value === "") return undefined;
  const out: Record<string, number> = {};
  for (const part of String(value).split(",")) {
    const [key, number] = part.includes("=") ? part.split("=", 2) : ["order", part];
    if (key !== undefined && ["order", "up", "down"].includes(key)) out[key] = Number(number);
  }
  return out;
}

/** PVE's pool id (`pve-poolid`): the name a pool was created with. */
export const poolSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9.\-_]+$/,
    "must be the name of a PVE resource pool: letters, digits, dots, hyphens and underscores",
  );

/** A PVE boolean key (`onboot`, `protection`): absent is PVE's default, off. */
export const readFlag = (config: VmConfig, key: string): boolean =>
  Number(config[key] ?? 0) === 1 || config[key] === true;
