/**
 * The inputs of a `CloudImageTemplate`, checked once here and used by every operation: the
 * schema follows from the spec (./template-spec.ts), plus the rule PVE has for two of them
 * together (a checksum and its algorithm).
 */
import { z } from "zod";
import type { CheckFailure } from "../inputs/check-failure";
import { containsUnknown, identityInputSchema } from "../inputs/unknown";
import { failuresOfIssues } from "../vm/operations/check";
import {
  TEMPLATE_FIELDS,
  TEMPLATE_FIELD_NAMES,
  type TemplateFieldName,
  type TemplateFields,
} from "./template-spec";

/** Hex digits of each checksum algorithm PVE's download-url verifies. */
const CHECKSUM_LENGTHS = { sha256: 64, sha512: 128 } as const;

export { IMAGE_FORMATS, imageFormatOf, TEMPLATE_STORAGE_DEFAULTS } from "./template-spec";

/** Each input's schema as `check` parses it: a default filled in, else optional unless required. */
type InputSchemas = {
  readonly [K in TemplateFieldName]: TemplateFields[K] extends { readonly default: unknown }
    ? z.ZodDefault<TemplateFields[K]["schema"]>
    : TemplateFields[K] extends { readonly required: true }
      ? TemplateFields[K]["schema"]
      : z.ZodOptional<TemplateFields[K]["schema"]>;
};

const inputSchemas = Object.fromEntries(
  TEMPLATE_FIELD_NAMES.map((name) => {
    const spec: { schema: z.ZodType; default?: unknown; required?: boolean } =
      TEMPLATE_FIELDS[name];
    const schema =
      spec.default !== undefined
        ? spec.schema.default(spec.default)
        : spec.required === true
          ? spec.schema
          : spec.schema.optional();
    return [name, schema];
  }),
) as unknown as InputSchemas;

const templateInputsSchema = z
  .strictObject({
    __provider: z.unknown().optional(),
    identity: identityInputSchema,
    ...inputSchemas,
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

/** The inputs whose change makes another template (all but the provider's own settings). */
export const TEMPLATE_INPUT_KEYS = TEMPLATE_FIELD_NAMES.filter(
  (name) => TEMPLATE_FIELDS[name].change === "replace",
) as readonly Exclude<TemplateFieldName, "vmidRange" | "timeouts">[];

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
