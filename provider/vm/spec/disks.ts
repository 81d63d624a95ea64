/**
 * The VM's disks (`disks`): the schema users write, the drive values PVE takes, and PVE's drive
 * values read back in the input's terms. A declared disk the VM already has (the template's boot
 * disk, a disk added earlier) keeps its volume: only the options the program sets are written
 * over it. A disk it does not have is allocated with PVE's `storage:sizeGiB` syntax.
 */
import { z } from "zod";
import type { VmConfig } from "../../pve/api/proxmox-api";
import { storageId } from "../../inputs/formats";
import { kindOf } from "../../inputs/unknown";
import { bootDisk, diskSizeGiB } from "../state/vm-facts";
import {
  AIO_MODES,
  IO_LIMIT_OPTIONS,
  formatIoLimits,
  ioLimitsSchema,
  readIoLimits,
} from "./disk-io";
import type { ObservedVm, Seen } from "./field";

/** A disk size in GiB: the boot disk's `diskSize` and each disk's `sizeGiB`. */
export const diskGiB = z
  .number({ error: (issue) => `must be a number of GiB, e.g. 20, got ${kindOf(issue.input)}` })
  .int("must be a whole number of GiB")
  .min(1, "is in GiB, at least 1")
  .max(1024 * 1024, "is in GiB, at most 1048576");

/** The message of a refused shrink: PVE's resize only grows. */
export function shrinkRefusal(what: string, property: string, oldGiB: number): string {
  return (
    `Proxmox cannot shrink disks: ${what} was ${oldGiB} GiB, so ${property} must be ` +
    `${oldGiB} or more (or replace the VM).`
  );
}

/** The buses PVE 8 accepts, with their highest index (qemu-server's drive key ranges). */
const INTERFACE = /^(scsi([0-9]|[12][0-9]|30)|virtio([0-9]|1[0-5])|sata[0-5])$/;

const CACHE_MODES = ["none", "writethrough", "writeback", "unsafe", "directsync"] as const;

const diskSchema = z
  .strictObject({
    interface: z
      .string()
      .regex(INTERFACE, "must be a disk slot: scsi0–scsi30, virtio0–virtio15 or sata0–sata5"),
    storage: storageId.optional(),
    sizeGiB: diskGiB,
    iothread: z.boolean().optional(),
    discard: z.boolean().optional(),
    ssd: z.boolean().optional(),
    cache: z.enum(CACHE_MODES).optional(),
    backup: z.boolean().optional(),
    replicate: z.boolean().optional(),
    format: z.enum(["raw", "qcow2", "vmdk"]).optional(),
    aio: z.enum(AIO_MODES).optional(),
    ioLimits: ioLimitsSchema.optional(),
    remove: z.boolean().optional(),
  })
  .superRefine((disk, ctx) => {
    // PVE's drive formats: virtio has no `ssd`, SATA no `iothread`.
    if (disk.ssd !== undefined && disk.interface.startsWith("virtio"))
      ctx.addIssue({ code: "custom", path: ["ssd"], message: "virtio disks have no ssd option" });
    if (disk.iothread !== undefined && disk.interface.startsWith("sata"))
      ctx.addIssue({
        code: "custom",
        path: ["iothread"],
        message: "SATA disks have no iothread option",
      });
    // QEMU opens the disk with O_DIRECT for native AIO: a caching mode fails the VM's start.
    if (disk.aio === "native" && !["none", "directsync", undefined].includes(disk.cache))
      ctx.addIssue({
        code: "custom",
        path: ["aio"],
        message: `native needs cache "none" or "directsync" (cache is "${disk.cache}")`,
      });
  });

export const disksSchema = z
  .array(diskSchema)
  .max(52)
  .superRefine((disks, ctx) => {
    disks.forEach((disk, index) => {
      if (disks.findIndex((d) => d.interface === disk.interface) !== index)
        ctx.addIssue({
          code: "custom",
          path: [index, "interface"],
          message: `${disk.interface} is declared twice`,
        });
    });
  });

export type DiskInputs = z.output<typeof diskSchema>;
type OptionName = "iothread" | "discard" | "ssd" | "cache" | "backup" | "replicate";

const isTrue = (text: string | undefined) => /^(1|on|yes|true)$/i.test(text ?? "");

/** Each option's PVE key, how it is written, and how PVE's text (absent: its default) reads. */
const OPTIONS: {
  readonly [K in OptionName]: {
    readonly write: (value: NonNullable<DiskInputs[K]>) => string;
    readonly read: (text: string | undefined) => NonNullable<DiskInputs[K]>;
  };
} = {
  iothread: { write: (on) => (on ? "1" : "0"), read: isTrue },
  discard: { write: (on) => (on ? "on" : "ignore"), read: (text) => text === "on" },
  ssd: { write: (on) => (on ? "1" : "0"), read: isTrue },
  // No `cache=` is QEMU's cache=none.
  cache: {
    write: (mode) => mode,
    read: (text) => CACHE_MODES.find((mode) => mode === text) ?? "none",
  },
  backup: { write: (on) => (on ? "1" : "0"), read: (text) => text === undefined || isTrue(text) },
  replicate: {
    write: (on) => (on ? "1" : "0"),
    read: (text) => text === undefined || isTrue(text),
  },
};
const OPTION_NAMES = Object.keys(OPTIONS) as OptionName[];

/** A drive value's parts: `local-lvm:vm-100-disk-0,discard=on,size=32G`. */
export interface Drive {
  /** The volume (`local-lvm:vm-100-disk-0`), or `storage:size` for one still to allocate. */
  readonly volume: string;
  readonly options: ReadonlyArray<readonly [string, string]>;
}

function parseDrive(value: string): Drive {
  const [volume = "", ...rest] = value.split(",");
  const options = rest.map((part): [string, string] => {
    const eq = part.indexOf("=");
    return eq < 0 ? [part, ""] : [part.slice(0, eq), part.slice(eq + 1)];
  });
  return { volume, options };
}

export function printDrive(drive: Drive): string {
  return [drive.volume, ...drive.options.map(([key, value]) => `${key}=${value}`)].join(",");
}

const optionOf = (drive: Drive, key: string) => drive.options.find(([k]) => k === key)?.[1];

/** `local-lvm:vm-100-disk-0` → `local-lvm`. */
export const storageOf = (drive: Drive): string => drive.volume.split(":")[0] ?? "";

/** The VM's disk at `key`, parsed; a CD-ROM or an absent key is no disk. */
export function diskAt(config: VmConfig, key: string): Drive | undefined {
  const value = config[key];
  if (typeof value !== "string") return undefined;
  const drive = parseDrive(value);
  return optionOf(drive, "media") === "cdrom" ? undefined : drive;
}

/** Sets the options the program declares where they differ from PVE's (absent: its default). */
function withOptions(drive: Drive, disk: DiskInputs): Drive {
  let options = [...drive.options];
  for (const name of OPTION_NAMES) {
    const wanted = disk[name];
    if (wanted === undefined) continue;
    const option = OPTIONS[name] as {
      write: (value: unknown) => string;
      read: (text: string | undefined) => unknown;
    };
    if (option.read(optionOf(drive, name)) === wanted) continue;
    const text = option.write(wanted);
    options = options.some(([key]) => key === name)
      ? options.map(([key, value]) => [key, key === name ? text : value] as const)
      : [...options, [name, text] as const];
  }
  return { volume: drive.volume, options: withIo(options, disk) };
}

type Options = ReadonlyArray<readonly [string, string]>;

/** `aio` where it differs; with `ioLimits`, its limits and no other (a limit left out is none). */
function withIo(options: Options, disk: DiskInputs): Options {
  const wanted: Record<string, string> = {
    ...(disk.aio === undefined ? {} : { aio: disk.aio }),
    ...(disk.ioLimits === undefined ? {} : formatIoLimits(disk.ioLimits)),
  };
  const owned = (key: string) =>
    key in wanted || (disk.ioLimits !== undefined && IO_LIMIT_OPTIONS.includes(key));
  const kept = options.flatMap(([key, value]): Options =>
    !owned(key) ? [[key, value]] : key in wanted ? [[key, wanted[key] ?? value]] : [],
  );
  const added = Object.entries(wanted).filter(([key]) => !kept.some(([k]) => k === key));
  return [...kept, ...added];
}

/**
 * The drive values of the declared disks: an existing disk keeps its volume and size (a grow is
 * a resize, a storage change a move), a new one is allocated on its storage or the boot disk's.
 */
export function formatDisks(disks: readonly DiskInputs[], seen: Seen): Record<string, string> {
  const config = seen.config ?? {};
  const out: Record<string, string> = {};
  for (const disk of disks) {
    if (disk.remove === true) continue;
    const current = diskAt(config, disk.interface);
    const drive = current ?? {
      volume: `${disk.storage ?? defaultStorage(config) ?? ""}:${disk.sizeGiB}`,
      options: disk.format === undefined ? [] : [["format", disk.format] as const],
    };
    out[disk.interface] = printDrive(withOptions(drive, disk));
  }
  return out;
}

/** Where a disk declared without a storage is allocated: beside the VM's boot disk. */
export function defaultStorage(config: VmConfig): string | undefined {
  const boot = bootDisk(config);
  const drive = boot === undefined ? undefined : diskAt(config, boot);
  return drive === undefined ? undefined : storageOf(drive);
}

/** The disks marked `remove`: PVE detaches them, keeping each volume as an `unusedN` entry. */
export const removedDisks = (disks: readonly DiskInputs[]): string[] =>
  disks.filter((disk) => disk.remove === true).map((disk) => disk.interface);

/**
 * Of the disks converge writes or detaches, those a running VM takes only at its next restart:
 * a SATA disk added or detached (PVE hot-plugs SCSI and virtio disks only), and an `aio`, cache,
 * discard, SSD or iothread change of a disk in use. qemu-server's vmconfig_update_disk keeps
 * those pending and applies the rest to a drive in use on any bus: its I/O limits through QMP
 * `block_set_io_throttle`, at once.
 */
export function restartingDisks(
  config: VmConfig,
  set: Readonly<Record<string, unknown>>,
  detached: readonly string[],
): string[] {
  return [...Object.keys(set), ...detached].filter((key) => {
    if (!INTERFACE.test(key)) return false;
    const before = key in set ? diskAt(config, key) : undefined;
    if (before === undefined) return key.startsWith("sata");
    const after = parseDrive(String(set[key]));
    if (after.volume !== before.volume) return key.startsWith("sata");
    return (
      (["iothread", "discard", "ssd", "cache"] as const).some(
        (name) =>
          OPTIONS[name].read(optionOf(before, name)) !== OPTIONS[name].read(optionOf(after, name)),
      ) || optionOf(before, "aio") !== optionOf(after, "aio")
    );
  });
}

/**
 * The declared disks as the VM has them: size always, storage and options only where the program
 * sets them. A missing disk is left out and a disk marked `remove` that is still attached loses
 * its mark, so either reads as drift. `format` is the input's: it applies when a disk is
 * allocated or moved, and PVE's drive value does not keep it.
 */
export function readDisks({ config }: ObservedVm, input: readonly DiskInputs[]): DiskInputs[] {
  return input.flatMap((disk): DiskInputs[] => {
    const drive = diskAt(config, disk.interface);
    if (disk.remove === true) return [drive === undefined ? disk : { ...disk, remove: false }];
    if (drive === undefined) return [];
    const read: Record<string, unknown> = { ...disk };
    read["sizeGiB"] = diskSizeGiB(printDrive(drive)) ?? 0;
    if (disk.storage !== undefined) read["storage"] = storageOf(drive);
    for (const name of OPTION_NAMES)
      if (disk[name] !== undefined) read[name] = OPTIONS[name].read(optionOf(drive, name));
    // An absent `aio` is PVE's default for the storage, which the drive value does not say.
    if (disk.aio !== undefined) read["aio"] = optionOf(drive, "aio");
    if (disk.ioLimits !== undefined)
      read["ioLimits"] = readIoLimits((option) => optionOf(drive, option));
    return [read as DiskInputs];
  });
}

/**
 * `disks` asking for every disk the VM has on a bus the input takes, with its storage and the
 * options its drive value sets; undefined when it has none. CD-ROMs are no disks.
 */
export function probeDisks({ config }: ObservedVm): DiskInputs[] | undefined {
  const disks = Object.keys(config)
    .filter((key) => INTERFACE.test(key) && diskAt(config, key) !== undefined)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((key): DiskInputs => {
      const drive = diskAt(config, key) as Drive;
      const options = OPTION_NAMES.filter((name) => optionOf(drive, name) !== undefined);
      return {
        interface: key,
        storage: storageOf(drive),
        sizeGiB: 0,
        ...Object.fromEntries(options.map((name) => [name, OPTIONS[name].read(undefined)])),
        ...(optionOf(drive, "aio") === undefined ? {} : { aio: AIO_MODES[0] }),
        ...(IO_LIMIT_OPTIONS.some((option) => optionOf(drive, option) !== undefined)
          ? { ioLimits: {} }
          : {}),
      };
    });
  return disks.length === 0 ? undefined : disks;
}

/**
 * Changes PVE cannot make, or that would lose data silently: a shrink, a disk dropped from the
 * list without `remove` (the provider never detaches a disk unasked), a format change in place.
 */
export function refuseDisks(old: unknown, now: readonly DiskInputs[]): string | undefined {
  const parsed = disksSchema.safeParse(old);
  if (!parsed.success) return undefined;
  const reasons = parsed.data.flatMap((before) => {
    if (before.remove === true) return [];
    const index = now.findIndex((disk) => disk.interface === before.interface);
    const after = now[index];
    if (after === undefined)
      return [
        `${before.interface} left the list: to detach it, keep it with remove: true; ` +
          "to keep it, keep its entry.",
      ];
    if (after.sizeGiB < before.sizeGiB)
      return [shrinkRefusal(before.interface, `disks[${index}].sizeGiB`, before.sizeGiB)];
    if (after.format !== before.format && after.storage === before.storage)
      return [
        `${before.interface}'s format applies when it is allocated or moved: change its ` +
          `storage too (disks[${index}].storage), or keep format ${before.format ?? "unset"}.`,
      ];
    return [];
  });
  return reasons.length === 0 ? undefined : reasons.join(" ");
}
