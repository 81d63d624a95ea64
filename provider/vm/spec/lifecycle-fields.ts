/**
 * How the VM lives in PVE: power, tags, notes, hot-plug, start at boot, protection, hookscript,
 * pool.
 */
import { z } from "zod";
import { userDescription } from "../description";
import { normalizeTags } from "../../inputs/unknown";
import { parseTags } from "../state/vm-facts";
import { field } from "./field";
import { text } from "./firmware";
import {
  formatHotplug,
  formatStartup,
  hotplugSchema,
  normalizeHotplug,
  parseHotplug,
  parseStartup,
  poolSchema,
  readFlag,
  startupSchema,
} from "./lifecycle";

/** PVE's tag syntax; tags are compared after normalisation (lower-case, sorted, unique). */
const tag = z
  .string()
  .regex(
    /^[a-zA-Z0-9_][a-zA-Z0-9_\-+.]*$/,
    "must start with a letter, digit or underscore and contain only letters, digits, _ - + .",
  );

/** The VM's life in PVE. */
export const LIFECYCLE_FIELDS = {
  started: field({
    doc: "Whether the VM runs (default true).",
    docType: "boolean",
    schema: z.boolean(),
    default: true,
    mayBeUnknown: true,
    change: "hot",
    // An adopted VM whose program does not set it has none.
    stored: z.boolean().optional(),
    readBack: { from: "vm", read: ({ running }) => running, probe: ({ running }) => running },
    example: { valid: false, invalid: "yes" },
  }),
  tags: field({
    doc: "Compared the way PVE stores them: lower-case, sorted, unique.",
    docType: "string[]",
    schema: z.array(tag).max(64),
    mayBeUnknown: true,
    change: "hot",
    // A value that is not a list of tags (absent, or blinded as a secret) is compared as it is.
    normalize: (tags) =>
      Array.isArray(tags) && tags.every((t) => typeof t === "string")
        ? normalizeTags(tags)
        : (tags ?? []),
    stored: z.array(z.string()).optional(),
    config: {
      key: "tags",
      format: (tags) => normalizeTags(tags).join(";"),
      same: (current, wanted) => parseTags(text(current)).join(";") === wanted,
    },
    readBack: { from: "vm", read: ({ config }) => parseTags(config.tags) },
    example: { valid: ["Web", "prod"], invalid: ["-web"] },
  }),
  description: field({
    doc: "The VM's notes in PVE; the provider appends its own mark below them.",
    docType: "string",
    schema: z.string().max(4096, "at most 4096 characters"),
    mayBeUnknown: true,
    change: "hot",
    stored: z.string().optional(),
    readBack: {
      from: "vm",
      read: ({ config }) => userDescription(config.description),
      probe: ({ config }) => userDescription(config.description),
    },
    example: { valid: "web tier", invalid: 42 },
  }),
  hotplug: field({
    doc:
      "The features PVE hot-plugs into a running VM: `network`, `disk`, `cpu`, `memory`, `usb`, " +
      "`cloudinit`; `[]` for none. Unset, the VM keeps its template's (PVE's default `network,disk,usb`).",
    docType: "string[]",
    schema: hotplugSchema,
    mayBeUnknown: true,
    change: "hot",
    normalize: (features) =>
      Array.isArray(features) && features.every((f) => typeof f === "string")
        ? normalizeHotplug(features)
        : features,
    stored: z.array(z.string()).optional(),
    config: {
      key: "hotplug",
      format: formatHotplug,
      same: (current, wanted) => parseHotplug(current).join() === parseHotplug(wanted).join(),
    },
    readBack: {
      from: "vm",
      read: ({ config }) => parseHotplug(config["hotplug"]) as z.output<typeof hotplugSchema>,
    },
    example: { valid: ["network", "disk", "cpu"], invalid: ["nics"] },
  }),
  onBoot: field({
    doc: "Whether PVE starts the VM when its node boots.",
    docType: "boolean",
    schema: z.boolean(),
    mayBeUnknown: true,
    change: "hot",
    stored: z.boolean().optional(),
    config: { key: "onboot", format: (on) => (on ? 1 : 0) },
    readBack: { from: "vm", read: ({ config }) => readFlag(config, "onboot") },
    example: { valid: true, invalid: "yes" },
  }),
  startup: field({
    doc: "`{ order, up, down }`: the start position at node boot and the seconds to wait after start and for shutdown.",
    docType: "{ order?: number; up?: number; down?: number }",
    schema: startupSchema,
    mayBeUnknown: true,
    change: "hot",
    stored: z.looseObject({}).optional(),
    config: {
      key: "startup",
      format: formatStartup,
      same: (current, wanted) =>
        formatStartup(parseStartup(current) ?? {}) === formatStartup(parseStartup(wanted) ?? {}),
    },
    readBack: { from: "vm", read: ({ config }) => parseStartup(config["startup"]) },
    example: { valid: { order: 2, up: 30 }, invalid: { order: -1 } },
  }),
  protection: field({
    doc: "Whether PVE refuses to remove the VM or its disks. `pulumi destroy` turns it off first.",
    docType: "boolean",
    schema: z.boolean(),
    mayBeUnknown: true,
    change: "hot",
    stored: z.boolean().optional(),
    config: { key: "protection", format: (on) => (on ? 1 : 0) },
    readBack: { from: "vm", read: ({ config }) => readFlag(config, "protection") },
    example: { valid: true, invalid: 1 },
  }),
  hookscript: field({
    doc:
      "A script PVE runs at each phase of the VM's life (pre-start, post-start, pre-stop, " +
      "post-stop), as a snippet volume, e.g. `local:snippets/hook.pl`: the file must be there " +
      "and executable. PVE lets only root@pam set it. Applies at once, running or not.",
    docType: "string",
    // PVE::GuestHelpers::check_hookscript wants the `snippets` volume type.
    schema: z
      .string()
      .regex(
        /^[a-z][a-z0-9\-_.]*[a-z0-9]:snippets\/[^/]+$/i,
        'must be a snippet volume, e.g. "local:snippets/hook.pl"',
      ),
    mayBeUnknown: true,
    // qemu-server's `$fast_plug_option`: written to the running config at once.
    change: "hot",
    stored: z.string().optional(),
    config: { key: "hookscript", format: (volid) => volid },
    readBack: { from: "vm", read: ({ config }) => text(config["hookscript"]) },
    example: { valid: "local:snippets/hook.pl", invalid: "local:iso/hook.pl" },
  }),
  pool: field({
    doc:
      "The resource pool the VM belongs to; the pool must exist. The clone joins it, a change " +
      "moves the VM to the new pool, and removing the input takes the VM out of it.",
    docType: "string",
    schema: poolSchema,
    mayBeUnknown: true,
    // Membership lives in user.cfg, outside the VM's config: written at once, running or not.
    change: "hot",
    undoneWhenRemoved: true,
    stored: z.string().optional(),
    readBack: { from: "vm", read: ({ pool }) => pool, probe: ({ pool }) => pool },
    example: { valid: "web-tier", invalid: "web tier" },
  }),
} as const;
