/**
 * What follows from the spec: the schema `check` parses, the inputs' types, `diff`'s key lists
 * and defaults, and the stored shape of each input. Nothing here names a field.
 */
import { z } from "zod";
import { UNKNOWN, identityInputSchema } from "../../inputs/unknown";
import type { Change, FieldSpec } from "./field";
import { FIELDS, FIELD_NAMES, type FieldName, type Fields } from "./fields";

type Unknown = typeof UNKNOWN;
type Spec = Fields[FieldName];

/** Fields that may be left out: neither required nor defaulted. */
type OptionalName = {
  [K in FieldName]: Fields[K] extends { readonly required: true }
    ? never
    : Fields[K] extends { readonly default: unknown }
      ? never
      : K;
}[FieldName];

type ParsedValue<F extends Spec> =
  z.output<F["schema"]> | (F extends { readonly mayBeUnknown: true } ? Unknown : never);

/** The inputs as `check` returns them: parsed, defaults applied, possibly unknown in a preview. */
export type VmInputs = {
  /** Added by the dynamic-resource SDK to every input set; not ours to validate. */
  readonly __provider?: unknown;
  readonly identity: z.output<typeof identityInputSchema>;
} & { readonly [K in Exclude<FieldName, OptionalName>]: ParsedValue<Fields[K]> } & {
  readonly [K in OptionalName]?: ParsedValue<Fields[K]> | undefined;
};

/** The value a user writes for a field (before defaults), with arrays read-only. */
export type ArgOf<K extends FieldName> = ReadonlyDeep<z.input<Fields[K]["schema"]>>;

type ReadonlyDeep<T> = T extends readonly (infer U)[]
  ? readonly ReadonlyDeep<U>[]
  : T extends object
    ? { readonly [P in keyof T]: ReadonlyDeep<T[P]> }
    : T;

const orUnknown = (schema: z.ZodType) => z.union([z.literal(UNKNOWN), schema]);

type InputRule = Pick<FieldSpec, "schema" | "default" | "required" | "mayBeUnknown">;

function inputSchemaOf(spec: InputRule): z.ZodType {
  const schema = spec.mayBeUnknown ? orUnknown(spec.schema) : spec.schema;
  if (spec.default !== undefined) return schema.default(spec.default);
  return spec.required ? schema : schema.optional();
}

/** The schema `check` parses the inputs with. */
export const vmInputsSchema = z.strictObject({
  __provider: z.unknown().optional(),
  identity: identityInputSchema,
  ...Object.fromEntries(FIELD_NAMES.map((name) => [name, inputSchemaOf(FIELDS[name])])),
}) as unknown as z.ZodType<VmInputs>;

/** The fields whose change is applied the given way, in spec order. */
export function fieldsChanged(...changes: readonly Change[]): FieldName[] {
  return FIELD_NAMES.filter((name) => changes.includes(FIELDS[name].change));
}

/** The defaults of the fields that have one. */
export const DEFAULTS: Readonly<Partial<Record<FieldName, unknown>>> = Object.fromEntries(
  FIELD_NAMES.flatMap((name) => {
    const spec: Spec = FIELDS[name];
    return "default" in spec ? [[name, spec.default]] : [];
  }),
);

/** Each input's schema in the stored state. */
export const storedInputsShape = Object.fromEntries(
  FIELD_NAMES.map((name) => [name, FIELDS[name].stored]),
) as { readonly [K in FieldName]: Fields[K]["stored"] };
