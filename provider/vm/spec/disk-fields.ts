/** The VM's disks: the boot disk's size, or the whole list. */
import { z } from "zod";
import { bootDisk, diskSizeGiB } from "../state/vm-facts";
import {
  diskGiB,
  disksSchema,
  formatDisks,
  probeDisks,
  readDisks,
  refuseDisks,
  removedDisks,
  shrinkRefusal,
} from "./disks";
import { field } from "./field";

/** Disks. */
export const DISK_FIELDS = {
  diskSize: field({
    doc: "GiB of the boot disk; can only grow.",
    docType: "number",
    schema: diskGiB,
    mayBeUnknown: true,
    change: "hotplug",
    refuse: (old, now) =>
      typeof old === "number" && now < old ? shrinkRefusal("it", "diskSize", old) : undefined,
    stored: z.number().optional(),
    readBack: {
      from: "vm",
      read: ({ config }) => {
        const disk = bootDisk(config);
        return disk ? diskSizeGiB(String(config[disk])) : undefined;
      },
    },
    example: { valid: 32, invalid: 2.5 },
  }),
  disks: field({
    doc:
      "The VM's disks, the boot disk included (by its slot, e.g. `scsi0`): a disk the VM lacks " +
      "is added, a larger `sizeGiB` grows it, another `storage` moves it; `remove: true` " +
      "detaches it. A running VM takes new `ioLimits` (MB/s and IOPS, with bursts) at once, an " +
      "`aio` change at its next reboot. Instead of `diskSize`, not with it.",
    docType: "DiskArgs[]",
    schema: disksSchema,
    mayBeUnknown: true,
    // A new disk and a grow are hot-plugged (PVE's default hotplug has `disk`); converge
    // reboots for an option change of a disk in use, which PVE keeps pending.
    change: "hotplug",
    refuse: (old, now) => refuseDisks(old, now),
    // States written before the input existed have none.
    stored: z.array(z.looseObject({ interface: z.string() })).optional(),
    configKeys: { format: formatDisks },
    configRemoves: removedDisks,
    readBack: { from: "vm", read: readDisks, probe: probeDisks },
    example: {
      valid: [
        { interface: "scsi0", sizeGiB: 32, discard: true },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 100, backup: false },
      ],
      invalid: [{ interface: "ide0", sizeGiB: 8 }],
    },
  }),
} as const;
