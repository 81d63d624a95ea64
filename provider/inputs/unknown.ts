/**
 * The helpers every input check shares: Pulumi's unknown sentinel, how a value's kind is named
 * in a message, the identity the resource class adds, and PVE's tag normalisation. The inputs
 * themselves are described in provider/vm/spec/.
 *
 * During `pulumi preview` an input that is not known yet arrives as Pulumi's unknown sentinel;
 * {@link UNKNOWN} values are accepted by `check` and treated by `diff` as "may change".
 */
import { z } from "zod";

/** `pulumi.runtime.unknownValue`, as the dynamic-provider host passes it to check and diff. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const isUnknown = (value: unknown): boolean => value === UNKNOWN;

/** Whether a value is, or holds anywhere inside it, an unknown. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** How a value's type is named in a message: "a string", "an array", "null". */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** What the resource class adds on its own: the engine never tells a dynamic provider the URN. */
export const identityInputSchema = z.strictObject({
  project: z.string().min(1),
  stack: z.string().min(1),
  name: z.string().min(1),
});

/** Normalises tags the way PVE stores them: lower-case, de-duplicated, sorted. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.toLowerCase()))].sort();
}
