/**
 * The inputs of a `CloudImageTemplate`, checked once here and used by every operation: what
 * PVE's `import` content takes, which image names are refused before any call, and the
 * template's hardware defaults. Node, storage, name, cores, memory and the VMID range reuse the
 * `ProxmoxVm` spec's schemas, so the same value is valid (or not) for the same reason in both.
 */
import { z } from "zod";
import type { CheckFailure } from "../inputs/check-failure";
import { containsUnknown, identityInputSchema } from "../inputs/unknown";
import { failuresOfIssues } from "../vm/operations/check";
import { FIELDS } from "../vm/spec/fields";

/** Hex digits of each checksum algorithm PVE's download-url verifies. */
const CHECKSUM_LENGTHS = { sha256: 64, sha512: 128 } as const;

/**
 * The format each image extension is stored as. `import` content takes `.qcow2|.raw|.vmdk`
 * (and `.ova`, which is not a disk image); an Ubuntu `*.img` is a qcow2 file.
 */
const FORMAT_OF_EXTENSION: Readonly<Record<string, "qcow2" | "raw" | "vmdk">> = {
  qcow2: "qcow2",
  img: "qcow2",
  raw: "raw",
  vmdk: "vmdk",
};

/** The formats a downloaded image is stored as (its file's extension). */
export const IMAGE_FORMATS = [...new Set(Object.values(FORMAT_OF_EXTENSION))];

/** PVE decompresses only `iso` content: a compressed disk image cannot be imported. */
const COMPRESSED = /\.(gz|xz|zst|bz2|lzo|zip|tgz)$/i;

/** The format of the image at `url`, from its path's extension; undefined when not importable. */
export function imageFormatOf(url: string): "qcow2" | "raw" | "vmdk" | undefined {
  const path = URL.canParse(url) ? new URL(url).pathname : url;
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : FORMAT_OF_EXTENSION[extension];
}

const imageUrl = z
  .string()
  .refine((v) => /^https?:\/\/./.test(v) && URL.canParse(v), "must be an http:// or https:// URL")
  .refine(
    // The URL is shown in progress lines and kept in the template's mark in PVE, which anyone
    // with VM.Audit reads: credentials in it would leak there.
    (v) => !URL.canParse(v) || (new URL(v).username === "" && new URL(v).password === ""),
    "must not carry a user name or password: the URL is shown in progress lines and kept in " +
      "the template's description in PVE; serve the image without credentials",
  )
  .refine(
    (v) => !COMPRESSED.test(new URL(v).pathname),
    "is a compressed image: PVE decompresses only ISO downloads, so give the URL of the " +
      "uncompressed .qcow2, .img, .raw or .vmdk file",
  )
  .refine(
    (v) => imageFormatOf(v) !== undefined || COMPRESSED.test(new URL(v).pathname),
    "must name a disk image ending .qcow2, .img (a qcow2 file, as Ubuntu's), .raw or .vmdk",
  );

const timeoutsSchema = z.strictObject({
  /** The download task: PVE fetches the whole image in it. */
  downloadMs: z.number().int().positive().default(1_800_000),
  /** Every other task: the import into the disk storage, the conversion, the deletes. */
  taskMs: z.number().int().positive().default(600_000),
});

/** Where the image is downloaded and the template's disk is made, unless the inputs say. */
export const TEMPLATE_STORAGE_DEFAULTS = { importStorage: "local", storage: "local-lvm" } as const;

const templateInputsSchema = z
  .strictObject({
    __provider: z.unknown().optional(),
    identity: identityInputSchema,
    url: imageUrl,
    checksum: z
      .string()
      .regex(/^[0-9a-fA-F]+$/, "must be a hex digest")
      .optional(),
    checksumAlgorithm: z.enum(["sha256", "sha512"]).optional(),
    node: FIELDS.node.schema,
    importStorage: FIELDS.storage.schema.default(TEMPLATE_STORAGE_DEFAULTS.importStorage),
    storage: FIELDS.storage.schema.default(TEMPLATE_STORAGE_DEFAULTS.storage),
    name: FIELDS.name.schema.optional(),
    cores: FIELDS.cores.schema.default(1),
    memory: FIELDS.memory.schema.default(1024),
    bridge: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9_.-]*$/, "must be a bridge name, e.g. vmbr0")
      .default("vmbr0"),
    vmidRange: FIELDS.vmidRange.schema.default({ min: 10_000, max: 99_999 }),
    timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
  })
  .superRefine((inputs, ctx) => {
    const { checksum, checksumAlgorithm } = inputs;
    if ((checksum === undefined) !== (checksumAlgorithm === undefined)) {
      const missing = checksum === undefined ? "checksum" : "checksumAlgorithm";
      ctx.addIssue({
        code: "custom",
        path: [missing],
        message: "is required: PVE takes checksum and checksumAlgorithm together",
      });
    } else if (checksum !== undefined && checksumAlgorithm !== undefined) {
      const length = CHECKSUM_LENGTHS[checksumAlgorithm];
      if (checksum.length !== length) {
        ctx.addIssue({
          code: "custom",
          path: ["checksum"],
          message: `must be ${length} hex digits for ${checksumAlgorithm}, got ${checksum.length}`,
        });
      }
    }
  });

export type TemplateInputs = z.output<typeof templateInputsSchema>;

/** The inputs whose change makes another template (all of them: a template is an image). */
export const TEMPLATE_INPUT_KEYS = [
  "url",
  "checksum",
  "checksumAlgorithm",
  "node",
  "importStorage",
  "storage",
  "name",
  "cores",
  "memory",
  "bridge",
] as const;

export function checkTemplate(news: Readonly<Record<string, unknown>>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  const parsed = templateInputsSchema.safeParse(news);
  if (!parsed.success) {
    return {
      inputs: { ...news },
      failures: failuresOfIssues(parsed.error, news, "CloudImageTemplate"),
    };
  }
  return {
    inputs: containsUnknown(news) ? { ...news } : { ...news, ...parsed.data },
    failures: [],
  };
}
