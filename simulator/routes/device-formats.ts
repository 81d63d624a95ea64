import type { PropertyFormat } from "../http/property-string.js";

/**
 * The property-string formats of the emulated devices beside disks and NICs, as qemu-server
 * registers them. Neither key is hot-pluggable (`vmconfig_hotplug_pending` in PVE/QemuServer.pm
 * has no case for it), so a running VM keeps a change under `/pending`.
 */

/** `pve-qm-watchdog` (`$watchdog_fmt`, PVE/QemuServer.pm): `[model=]<model>[,action=<action>]`. */
export const WATCHDOG: PropertyFormat = {
  model: {
    type: "string",
    defaultKey: true,
    optional: true,
    enum: ["i6300esb", "ib700"],
  },
  action: {
    type: "string",
    optional: true,
    enum: ["reset", "shutdown", "poweroff", "pause", "debug", "none"],
  },
};

/**
 * `pve-qm-rng` (`$rng_fmt`, PVE/QemuServer/RNG.pm): `[source=]<file>[,max_bytes=N][,period=N]`,
 * each an integer with no bound in the format (PVE's defaults 1024 bytes per 1000 ms).
 */
export const RNG: PropertyFormat = {
  source: {
    type: "string",
    defaultKey: true,
    enum: ["/dev/urandom", "/dev/random", "/dev/hwrng"],
  },
  max_bytes: { type: "integer", optional: true },
  period: { type: "integer", optional: true },
};

/**
 * `pve-qm-audio` (`$audio_fmt`, PVE/QemuServer.pm): `device=<ich9-intel-hda|intel-hda|AC97>`
 * with `driver=<spice|none>` (default spice). `audio0` needs VM.Config.HWType (`$hwtypeoptions`).
 */
export const AUDIO: PropertyFormat = {
  device: { type: "string", enum: ["ich9-intel-hda", "intel-hda", "AC97"] },
  driver: { type: "string", optional: true, enum: ["spice", "none"] },
};

/** `$numa_fmt`'s id lists: `<id[-id];...>`. */
const ID_LIST = /^\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*$/;

/**
 * `numaN` (`$numa_fmt`, PVE/QemuServer.pm): `cpus=<ids>[,hostnodes=<ids>][,memory=<MiB>]
 * [,policy=<preferred|bind|interleave>]`; `cpus` is the default key.
 */
export const NUMA: PropertyFormat = {
  cpus: { type: "string", defaultKey: true, pattern: ID_LIST },
  hostnodes: { type: "string", optional: true, pattern: ID_LIST },
  memory: { type: "number", optional: true },
  policy: { type: "string", optional: true, enum: ["preferred", "bind", "interleave"] },
};
