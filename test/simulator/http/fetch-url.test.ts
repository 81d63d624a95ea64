import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../../simulator/http/fetch-url.js";

describe("http/fetch-url", () => {
  it("counts 127/8, ::1 and localhost as loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "[::1]", "::1", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(true);
  });

  it("counts every other address and every other name as the network, without resolving it", () => {
    for (const host of ["10.0.0.1", "128.0.0.1", "::2", "cloud.debian.org", "localhost.evil.test"])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
