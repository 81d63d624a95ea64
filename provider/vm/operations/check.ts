/**
 * check: every input validated before any API call, with a failure that names the property and
 * says what is allowed. Tolerates preview's unknown values: a problem inside a value that is not
 * known yet is not reported (it will be checked again once known).
 */
import type { z } from "zod";
import type { CheckFailure } from "../../inputs/check-failure";
import { UNKNOWN, containsUnknown, isUnknown, kindOf } from "../../inputs/unknown";
import { VM_RESOURCE } from "../../glue/resource-types";
import { vmInputsSchema } from "../spec/derive";
import { FIELDS, FIELD_NAMES } from "../spec/fields";
import { adoptFailures, withoutUnwrittenDefaults } from "./check-adopt";

export interface CheckResult {
  readonly inputs: Record<string, unknown>;
  readonly failures: CheckFailure[];
}

export function checkVm(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): CheckResult {
  const parsed = vmInputsSchema.safeParse(news);
  const failures: CheckFailure[] = parsed.success ? [] : failuresOfIssues(parsed.error, news);

  failures.push(...saidTwice(news), ...writtenTogether(news));
  if (parsed.success) {
    // The stored inputs are as the program wrote them (glue/runtime.ts `check`): resolve them
    // the same way before comparing, so a default filled in is never read as a change.
    const before = Object.keys(olds).length === 0 ? undefined : vmInputsSchema.safeParse(olds);
    const oldInputs = before?.success === true ? before.data : olds;
    failures.push(...refusedChanges(oldInputs, parsed.data), ...conflicts(parsed.data));
  }
  if (parsed.success) failures.push(...bothDiskForms(news), ...adoptFailures(news));

  // Keep `__provider` and unknown values as they came; otherwise store the normalised inputs.
  const inputs =
    parsed.success && !containsUnknown(news)
      ? withoutUnwrittenDefaults({ ...news, ...parsed.data }, news)
      : { ...news };
  return { inputs, failures };
}

/**
 * zod's issues as failures that name the property as the user wrote it; issues at a value that
 * is still unknown (a preview) wait for the value. `resource` names the docs to check against.
 */
export function failuresOfIssues(
  error: z.ZodError,
  news: Readonly<Record<string, unknown>>,
  resource = VM_RESOURCE,
): CheckFailure[] {
  return error.issues
    .flatMap(unwrapUnion)
    .filter((issue) => !touchesUnknown(news, issue.path))
    .flatMap((issue) => failuresOf(issue, news, resource));
}

/** Changes PVE cannot make (a disk shrink), as the spec refuses them; an unknown value waits. */
function refusedChanges(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): CheckFailure[] {
  return FIELD_NAMES.flatMap((property) => {
    const spec = FIELDS[property];
    const now = news[property];
    if (!("refuse" in spec) || now === undefined || containsUnknown(now)) return [];
    const reason = (spec.refuse as (old: unknown, now: unknown) => string | undefined)(
      olds[property],
      now,
    );
    return reason === undefined ? [] : [{ property, reason }];
  });
}

/** A shorthand beside its full form (`cores` and `cpu`): the VM gets one of the two. */
function saidTwice(news: Readonly<Record<string, unknown>>): CheckFailure[] {
  return FIELD_NAMES.flatMap((full) => {
    const spec = FIELDS[full];
    if (!("excludes" in spec) || news[full] === undefined) return [];
    return spec.excludes
      .filter((shorthand) => news[shorthand] !== undefined)
      .map((shorthand) => ({
        property: shorthand,
        reason:
          `is the shorthand of ${full}.${shorthand}, and ${full} is set too: write it once, ` +
          `as ${full}: { ${shorthand}: ${JSON.stringify(news[shorthand])} } without ${shorthand}`,
      }));
  });
}

/** Combinations of inputs PVE cannot take (OVMF without an EFI disk), as the spec refuses them. */
function conflicts(news: Readonly<Record<string, unknown>>): CheckFailure[] {
  return FIELD_NAMES.flatMap((property) => {
    const spec = FIELDS[property];
    const now = news[property];
    if (!("conflict" in spec) || now === undefined || containsUnknown(now)) return [];
    const conflict = spec.conflict as (now: unknown, inputs: typeof news) => string | undefined;
    const reason = conflict(now, news);
    return reason === undefined ? [] : [{ property, reason }];
  });
}

/** `diskSize` is the boot disk's shorthand: with `disks`, the boot disk is one of its entries. */
function bothDiskForms(news: Readonly<Record<string, unknown>>): CheckFailure[] {
  if (news["diskSize"] === undefined || news["disks"] === undefined) return [];
  return [
    {
      property: "diskSize",
      reason:
        "cannot be set together with disks: size the boot disk by its entry in disks " +
        '(e.g. { interface: "scsi0", sizeGiB: 32 }) and remove diskSize.',
    },
  ];
}

/**
 * Inputs the spec says cannot be set together, as the program wrote them (before defaults): a
 * shorthand and its full form (`network` and `networks`), or an input and one it excludes.
 */
function writtenTogether(news: Readonly<Record<string, unknown>>): CheckFailure[] {
  return FIELD_NAMES.flatMap((property) => {
    const spec = FIELDS[property];
    if (news[property] === undefined) return [];
    if ("shorthandOf" in spec && news[spec.shorthandOf] !== undefined) {
      return [
        {
          property: spec.shorthandOf,
          reason:
            `cannot be combined with ${property}, its shorthand: ` +
            `move ${property} into ${spec.shorthandOf}[0] or remove ${spec.shorthandOf}`,
        },
      ];
    }
    if ("refusedBeside" in spec && news[spec.refusedBeside.input] !== undefined) {
      return [
        {
          property,
          reason: `cannot be combined with ${spec.refusedBeside.input}: ${spec.refusedBeside.reason}`,
        },
      ];
    }
    return [];
  });
}

/**
 * When every branch of a union fails, zod reports "Invalid input". A branch that failed only on
 * the value's shape (Pulumi's unknown sentinel in `orUnknown`, `"dhcp"` beside a static address)
 * is not what the user meant; when exactly one branch got further, its issues are the mistake.
 */
function unwrapUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const known = issue.errors.filter((branch) => !branch.every(isUnknownLiteral));
  const meant =
    known.length === 1
      ? known
      : known.filter(
          (branch) => !branch.every((inner) => inner.path.length === 0 && isShape(inner)),
        );
  const [only] = meant;
  if (meant.length !== 1 || only === undefined) return [issue];
  return only.flatMap((inner) => unwrapUnion({ ...inner, path: [...issue.path, ...inner.path] }));
}

const isShape = (issue: z.core.$ZodIssue) =>
  issue.code === "invalid_value" || issue.code === "invalid_type";

const isUnknownLiteral = (issue: z.core.$ZodIssue) =>
  issue.code === "invalid_value" && issue.values.includes(UNKNOWN);

function failuresOf(issue: z.core.$ZodIssue, news: unknown, resource: string): CheckFailure[] {
  if (issue.code === "unrecognized_keys") {
    // One failure per key, at the key itself: the engine shows it next to the value written.
    return issue.keys.map((key) => ({
      property: propertyPath([...issue.path, key]),
      reason: `is not a known property${issue.path.length > 0 ? ` of ${propertyPath(issue.path)}` : ""}: check the spelling against the ${resource} docs`,
    }));
  }
  const value = valueAt(news, issue.path);
  const property = propertyPath(issue.path);
  if (value === undefined) return [{ property, reason: "is required" }];
  if (issue.code === "invalid_type" && issue.message.startsWith("Invalid input")) {
    return [
      {
        property,
        reason: `must be ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}, got ${kindOf(value)}`,
      },
    ];
  }
  return [{ property, reason: issue.message }];
}

function propertyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) =>
      typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
    "",
  );
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (current, key) =>
      current !== null && typeof current === "object"
        ? (current as Record<PropertyKey, unknown>)[key]
        : undefined,
    value,
  );
}

function touchesUnknown(value: unknown, path: readonly PropertyKey[]): boolean {
  let current = value;
  for (const key of path) {
    if (isUnknown(current)) return true;
    if (current === null || typeof current !== "object") return false;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return isUnknown(current) || containsUnknown(current);
}
