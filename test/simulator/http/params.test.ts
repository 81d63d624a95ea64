import { describe, expect, it } from "vitest";
import { PveError } from "../../../simulator/http/pve-error.js";
import {
  NODE,
  validateParams,
  VMID,
  type ParamSchema,
  type RawParams,
} from "../../../simulator/http/params.js";

function errorsOf(
  raw: RawParams,
  schema: ParamSchema,
): Readonly<Record<string, string>> | undefined {
  try {
    validateParams(raw, schema);
  } catch (err) {
    if (err instanceof PveError) return err.errors;
    throw err;
  }
  return undefined;
}

describe("params", () => {
  it("accepts 1/0 and JSON booleans, returning numbers", () => {
    expect(
      validateParams({ a: "1", b: false }, { a: { type: "boolean" }, b: { type: "boolean" } }),
    ).toEqual({ a: 1, b: 0 });
  });

  it("rejects 'true' in form encoding with PVE's type check text", () => {
    expect(errorsOf({ a: "true" }, { a: { type: "boolean" } })).toEqual({
      a: "type check ('boolean') failed - got 'true'",
    });
  });

  it("rejects unknown and missing parameters in one 400", () => {
    expect(errorsOf({ x: "1" }, { node: NODE })).toEqual({
      x: "property is not defined in schema and the schema does not allow additional properties",
      node: "property is missing and it is not optional",
    });
  });

  it("checks the VMID format before the minimum", () => {
    expect(errorsOf({ vmid: "99" }, { vmid: VMID })).toEqual({
      vmid: "invalid format - value does not look like a valid VM ID",
    });
    expect(errorsOf({ vmid: "abc" }, { vmid: VMID })).toEqual({
      vmid: "type check ('integer') failed - got 'abc'",
    });
  });

  it("keeps number values as strings like Perl does", () => {
    expect(validateParams({ cpulimit: "4" }, { cpulimit: { type: "number" } })).toEqual({
      cpulimit: "4",
    });
  });

  it("rejects root-only options for tokens", () => {
    expect(errorsOf({ skiplock: "1" }, { skiplock: { type: "boolean", rootOnly: true } })).toEqual({
      skiplock: "Only root may use this option.",
    });
  });

  it("reports enum, DNS name and tag format errors in PVE's words", () => {
    expect(
      errorsOf(
        { bios: "uefi", name: "bad_name", tags: "ok,b@d" },
        {
          bios: { type: "string", enum: ["seabios", "ovmf"] },
          name: { type: "string", format: "dns-name" },
          tags: { type: "string", format: "pve-tag-list" },
        },
      ),
    ).toEqual({
      bios: "value 'uefi' does not have a value in the enumeration 'seabios, ovmf'",
      name: "invalid format - value does not look like a valid DNS name",
      tags: "invalid format - invalid characters in tag",
    });
  });
});
