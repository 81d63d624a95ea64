/**
 * Where the VM is and what it is made from: its node, template, storages, name and VMID. A change
 * of any of them makes another VM.
 */
import { z } from "zod";
import { storageId } from "../../inputs/formats";
import { isUnknown } from "../../inputs/unknown";
import { field } from "./field";

const nodeName = z
  .string()
  .regex(
    /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/,
    "must be a Proxmox node name: letters, digits and inner hyphens, e.g. pve1",
  );

export const vmid = z
  .number()
  .int("must be a whole number")
  .min(100, "Proxmox VMIDs start at 100")
  .max(999_999_999, "Proxmox VMIDs end at 999999999");

const dnsName = z
  .string()
  .max(63 * 4)
  .regex(
    /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/,
    "must be a DNS name: dot-separated labels of letters, digits and inner hyphens",
  );

const cloneSchema = z.strictObject({ full: z.boolean() });

/** Placement: read back from the mark the VM was created with. */
export const PLACEMENT_FIELDS = {
  node: field({
    doc: "The node the VM is placed on. Changing it replaces the VM.",
    docType: "string",
    schema: nodeName,
    required: true,
    mayBeUnknown: true,
    change: "replace",
    stored: z.string(),
    readBack: { from: "mark" },
    example: { valid: "pve2", invalid: "pve 1" },
  }),
  template: field({
    doc: "The template to clone, by VMID or by name. Changing it replaces the VM.",
    docType: "number | string",
    schema: z.union([vmid, dnsName]),
    required: true,
    mayBeUnknown: true,
    change: "replace",
    stored: z.union([z.string(), z.number()]),
    readBack: { from: "mark" },
    example: { valid: 9001, invalid: 99 },
  }),
  storage: field({
    doc: "Disk storage for the full clone (default: the template's). Changing it replaces the VM.",
    docType: "string",
    schema: storageId,
    mayBeUnknown: true,
    change: "replace",
    stored: z.string().optional(),
    readBack: { from: "mark" },
    example: { valid: "local-lvm", invalid: "9fast" },
  }),
  isoStorage: field({
    doc: "Storage for the cloud-init seed ISO (default `local`). Changing it replaces the VM.",
    docType: "string",
    schema: storageId,
    default: "local",
    mayBeUnknown: true,
    change: "replace",
    stored: z.string(),
    readBack: { from: "mark" },
    example: { valid: "cephfs", invalid: "-iso" },
  }),
  name: field({
    doc: "Pin the VM name (default: derived from the resource name). Replaces delete-first.",
    docType: "string",
    schema: dnsName,
    mayBeUnknown: true,
    change: "replace-delete-first",
    stored: z.string().optional(),
    readBack: { from: "input" },
    example: { valid: "web-1.example", invalid: "web_1" },
  }),
  vmid: field({
    doc: "Pin the VMID (default: allocated from `vmidRange`). Replaces delete-first.",
    docType: "number",
    schema: vmid,
    mayBeUnknown: true,
    change: "replace-delete-first",
    // The state always holds the VMID the VM has, pinned or allocated.
    stored: z.number(),
    readBack: { from: "input" },
    example: { valid: 4321, invalid: 42 },
  }),
  clone: field({
    doc: "`{ full: false }` clones linked to the template's disks (its storage must allow it; no `storage`). Default a full copy. Changing it replaces the VM.",
    docType: "{ full: boolean }",
    schema: cloneSchema,
    default: { full: true },
    mayBeUnknown: true,
    change: "replace",
    // States written before the input existed hold full clones.
    stored: cloneSchema.default({ full: true }),
    conflict: (clone, inputs) =>
      !clone.full && inputs["storage"] !== undefined && !isUnknown(inputs["storage"])
        ? "a linked clone (clone.full: false) keeps its disks on the template's storage, and PVE " +
          "refuses storage for it: remove storage, or set clone.full: true for a full copy there."
        : undefined,
    readBack: { from: "mark" },
    example: { valid: { full: false }, invalid: { full: "no" } },
  }),
} as const;
