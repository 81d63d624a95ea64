/**
 * check: every input validated before any API call, with a failure that names the property and
 * says what is allowed. Tolerates preview's unknown values: a problem inside a value that is not
 * known yet is not reported (it will be checked again once known).
 */
import type { z } from "zod";
import { containsUnknown, isUnknown, vmInputsSchema } from "../inputs";
import { validateVmCloudInit } from "./vm-seed";

export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

export interface CheckResult {
  readonly inputs: Record<string, unknown>;
  readonly failures: CheckFailure[];
}

export function checkVm(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): CheckResult {
  const parsed = vmInputsSchema.safeParse(news);
  const failures: CheckFailure[] = parsed.success
    ? []
    : parsed.error.issues
        .filter((issue) => !touchesUnknown(news, issue.path))
        .map((issue) => ({ property: propertyPath(issue.path), reason: reasonOf(issue, news) }));

  if (parsed.success) {
    const inputs = parsed.data;
    if (inputs.cloudInit !== undefined && !containsUnknown(inputs.cloudInit)) {
      failures.push(...validateVmCloudInit(inputs.cloudInit));
    }
    const oldDisk = olds["diskSize"];
    if (
      typeof inputs.diskSize === "number" &&
      typeof oldDisk === "number" &&
      inputs.diskSize < oldDisk
    ) {
      failures.push({
        property: "diskSize",
        reason: `Proxmox cannot shrink disks: it was ${oldDisk} GiB, so diskSize must be ${oldDisk} or more (or replace the VM).`,
      });
    }
  }

  // Keep `__provider` and unknown values as they came; otherwise store the normalised inputs.
  const inputs =
    parsed.success && !containsUnknown(news) ? { ...news, ...parsed.data } : { ...news };
  return { inputs, failures };
}

function reasonOf(issue: z.core.$ZodIssue, news: unknown): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown propert${issue.keys.length > 1 ? "ies" : "y"} ${issue.keys.join(", ")}: check the spelling against the ProxmoxVm docs`;
  }
  if (valueAt(news, issue.path) === undefined) return "is required";
  return issue.message;
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
