import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { markFor } from "../../../../provider/vm/identity";
import { checkVm } from "../../../../provider/vm/operations/check";
import type { ProxmoxVmArgs } from "../../../../provider/vm/resource";
import type { ArgOf } from "../../../../provider/vm/spec/derive";
import { FIELDS, FIELD_NAMES, type FieldName } from "../../../../provider/vm/spec/fields";

const base = {
  identity: { project: "infra", stack: "dev", name: "web" },
  node: "pve1",
  template: 9000,
};

/** A type with Pulumi's Inputs unwrapped and `?: T | undefined` read as `?: T`, at every depth. */
type Norm<T> = T extends readonly (infer U)[]
  ? readonly Norm<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Norm<Exclude<T[K], undefined>> }
    : T;
type MemberOf<K extends FieldName> = Norm<pulumi.Unwrap<Exclude<ProxmoxVmArgs[K], undefined>>>;
type SpecOf<K extends FieldName> = Norm<ArgOf<K>>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const holds = <T extends true>(): T => true as T;

describe("the spec", () => {
  it.each(FIELD_NAMES)("documents %s, with the type the docs show", (name) => {
    expect(FIELDS[name].doc.trim().length).toBeGreaterThan(10);
    expect(FIELDS[name].docType).not.toBe("");
  });

  it.each(FIELD_NAMES)("has check accept a valid %s and refuse an invalid one by name", (name) => {
    const { valid, invalid } = FIELDS[name].example;
    expect(checkVm({}, { ...base, [name]: valid }).failures).toEqual([]);
    const failures = checkVm({}, { ...base, [name]: invalid }).failures;
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expect(failure.property).toMatch(new RegExp(`^${name}\\b`));
  });

  it.each(FIELD_NAMES)("reads %s back: from the VM when PVE holds it", (name) => {
    const spec = FIELDS[name];
    expect(["mark", "input", "vm"]).toContain(spec.readBack.from);
    if ("config" in spec || "configKeys" in spec || spec.change === "hot")
      expect(spec.readBack.from).toBe("vm");
    if (spec.change === "replace") expect(spec.readBack.from).toBe("mark");
  });

  it("reads placement back from the keys the VM's mark records", () => {
    const mark = markFor(
      "0123456789abcdef",
      { node: "pve1", template: 9000, storage: "s", isoStorage: "i", clone: { full: false } },
      "complete",
    );
    const placement = FIELD_NAMES.filter((name) => FIELDS[name].readBack.from === "mark");
    expect(placement.length).toBeGreaterThan(0);
    for (const name of placement) expect(Object.keys(mark)).toContain(name);
  });

  it("writes each config key from one field only, unless check refuses the two together", () => {
    const seen = { macs: {} };
    const keysOf = (name: FieldName): string[] => {
      const spec = FIELDS[name];
      if ("config" in spec) return [spec.config.key];
      if (!("configKeys" in spec)) return [];
      const value = (spec.schema as z.ZodType).parse(spec.example.valid);
      return Object.keys(
        (spec.configKeys.format as (v: unknown, s: typeof seen) => object)(value, seen),
      );
    };
    // A shorthand and its full form: check refuses both (excludes), or the full form wins
    // (shorthandOf) and the shorthand is not written.
    const excluded = (a: FieldName, b: FieldName) =>
      [FIELDS[a], FIELDS[b]].some((spec, i) => {
        const other = i === 0 ? b : a;
        return (
          ("excludes" in spec && (spec.excludes as readonly string[]).includes(other)) ||
          ("shorthandOf" in spec && spec.shorthandOf === other)
        );
      });
    for (const a of FIELD_NAMES) {
      for (const b of FIELD_NAMES) {
        if (a >= b || excluded(a, b)) continue;
        const shared = keysOf(a).filter((key) => keysOf(b).includes(key));
        expect(shared, `${a} and ${b} both write ${shared.join(", ")}`).toEqual([]);
      }
    }
  });

  it("refuses a shorthand beside its full form, naming the shorthand", () => {
    const pairs = FIELD_NAMES.flatMap((full) => {
      const spec = FIELDS[full];
      return "excludes" in spec ? spec.excludes.map((shorthand) => [full, shorthand]) : [];
    });
    expect(pairs.length).toBeGreaterThan(0);
    for (const [full = "", shorthand = ""] of pairs) {
      const both = {
        ...base,
        [full]: FIELDS[full as FieldName].example.valid,
        [shorthand]: FIELDS[shorthand as FieldName].example.valid,
      };
      expect(checkVm({}, both).failures.map((f) => f.property)).toEqual([shorthand]);
    }
  });
});

describe("ProxmoxVmArgs", () => {
  it("types every member as the spec's input, the nested interfaces included", () => {
    // Checked by the compiler: `npm run typecheck` fails when a member and the spec disagree.
    holds<Same<keyof ProxmoxVmArgs, FieldName>>();
    holds<Same<{ [K in FieldName]: MemberOf<K> }, { [K in FieldName]: SpecOf<K> }>>();
    expect(FIELD_NAMES.length).toBeGreaterThan(0);
  });
});
