import { describe, expect, it } from "vitest";
import type { Exchange } from "../../../simulator/conformance/client.js";
import { redact } from "../../../simulator/conformance/compare.js";

const exchange = (error: string): Exchange => ({
  step: "s",
  method: "GET",
  path: "/version",
  params: {},
  status: 500,
  data: null,
  error,
});
const redacted = (text: string): string | undefined =>
  redact(exchange(text), { strings: [] }).error;

describe("conformance/compare redact", () => {
  it("replaces full and compressed IPv6 addresses", () => {
    expect(redacted("from 2001:db8:0:0:0:0:0:1 and fe80::1 and ::1")).toBe(
      "from <ipv6> and <ipv6> and <ipv6>",
    );
  });

  it("keeps clocks, MACs and Perl package names readable", () => {
    const text = "at 21:30:24, nic BC:24:11:2A:3B:4C, in PVE::Network";
    expect(redacted(text)).toBe(text);
  });

  it("replaces IPv4 addresses and the secrets it is given", () => {
    const out = redact(exchange("token s3cret from 10.0.0.5"), {
      strings: [["s3cret", "<secret>"]],
    });
    expect(out.error).toBe("token <secret> from <ipv4>");
  });
});
