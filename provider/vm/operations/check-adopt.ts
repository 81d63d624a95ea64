/**
 * What `check` adds for `adopt: { vmid }` (docs/guide.md, "Adopting existing VMs"): the inputs
 * that make no sense for a VM this stack did not clone are refused, and the spec's defaults of
 * inputs that write to PVE are not applied, so an adoption writes only what the program sets.
 */
import type { CheckFailure } from "../../inputs/check-failure";
import { FIELDS, FIELD_NAMES, type FieldName } from "../spec/fields";

type Props = Readonly<Record<string, unknown>>;

/** The VMID `adopt` names, or undefined for `adopt: true`, `false` or unset. */
export function adoptedVmid(inputs: Props): number | undefined {
  const adopt = inputs["adopt"];
  if (adopt === null || typeof adopt !== "object") return undefined;
  const vmid = (adopt as Record<string, unknown>)["vmid"];
  return typeof vmid === "number" ? vmid : undefined;
}

/**
 * Inputs an adoption cannot take: the VMID and name are the VM's own, and the cloud-init seed
 * is never written to a VM the stack did not make (its own cloud-init drive stays).
 */
const NOT_WITH_ADOPT: Readonly<Partial<Record<FieldName, string>>> = {
  vmid: "the VM's VMID is adopt.vmid: remove vmid",
  name: "an adopted VM keeps its own name: remove name",
  cloudInit:
    "an adopted VM keeps its own cloud-init drive, and the provider writes no seed to it: remove cloudInit",
  nameservers: "is written in the cloud-init seed, which an adopted VM does not get: remove it",
  searchDomains: "is written in the cloud-init seed, which an adopted VM does not get: remove it",
};

export function adoptFailures(news: Props): CheckFailure[] {
  if (adoptedVmid(news) === undefined) {
    return news["template"] === undefined
      ? [{ property: "template", reason: "is required (only adopt: { vmid } may leave it out)" }]
      : [];
  }
  return Object.entries(NOT_WITH_ADOPT).flatMap(([property, reason]) =>
    news[property] === undefined
      ? []
      : [{ property, reason: `cannot be combined with adopt: ${reason}` }],
  );
}

/**
 * The parsed inputs of an adoption without the defaults of inputs PVE sees (`network`, `agent`,
 * `started`) that the program did not write: an adopted VM keeps its NICs, agent and power
 * state unless the program says otherwise. Applied on every check, so it holds after adoption.
 */
export function withoutUnwrittenDefaults(parsed: Props, news: Props): Record<string, unknown> {
  if (adoptedVmid(news) === undefined) return { ...parsed };
  const unwritten = new Set(
    FIELD_NAMES.filter((name) => {
      const spec = FIELDS[name];
      const written = spec.change !== "setting" && !spec.change.startsWith("replace");
      return written && "default" in spec && news[name] === undefined;
    }),
  );
  return Object.fromEntries(
    Object.entries(parsed).filter(([key]) => !unwritten.has(key as FieldName)),
  );
}
