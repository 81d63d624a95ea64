import { describe, expect, it } from "vitest";
import { validateCloudInit } from "../../../../provider/vm/seed/seed-inputs.js";

describe("inputs", () => {
  it("accepts a full set of typed inputs", () => {
    const result = validateCloudInit({
      hostname: "web-1",
      users: [{ name: "ops", sudo: "ALL=(ALL) ALL", hashedPassword: "$6$salt$hash" }],
      network: [
        { mac: "52:54:00:12:34:56", dhcp4: true },
        { mac: "52:54:00:12:34:57", addresses: ["10.0.0.2/8"] },
      ],
    });
    expect(result.ok).toBe(true);
  });

  it("names each bad field with its property path", () => {
    expect(
      validateCloudInit({
        hostname: "-bad",
        users: [{ name: "Ops", sshAuthorizedKeys: ["not a key"] }],
        writeFiles: [{ path: "etc/x", content: "", permissions: "644x" }],
        network: [{ addresses: ["10.0.0.1"], gateway4: "::1" }, { dhcp4: true }],
        extra: 1,
      }),
    ).toEqual({
      ok: false,
      failures: [
        {
          property: "cloudInit.hostname",
          reason:
            "must be a DNS label: 1 to 63 of A-Z a-z 0-9 and -, not starting or ending with -",
        },
        {
          property: "cloudInit.users[0].name",
          reason: "must be a POSIX name: a-z _ first, then a-z 0-9 _ -, up to 32",
        },
        {
          property: "cloudInit.users[0].sshAuthorizedKeys[0]",
          reason: "must be one OpenSSH public key line (type, base64 key, optional comment)",
        },
        {
          property: "cloudInit.writeFiles[0].path",
          reason: "must be an absolute path without newlines",
        },
        {
          property: "cloudInit.writeFiles[0].permissions",
          reason: 'must be an octal mode string such as "0644"',
        },
        {
          property: "cloudInit.network[0].addresses[0]",
          reason: "must be an address with a prefix length, e.g. 192.0.2.10/24 or 2001:db8::10/64",
        },
        { property: "cloudInit.network[0].gateway4", reason: "must be an IPv4 address" },
        { property: "cloudInit.extra", reason: "is not a known field" },
        {
          property: "cloudInit.network[0].mac",
          reason: "is required when there is more than one NIC",
        },
        {
          property: "cloudInit.network[1].mac",
          reason: "is required when there is more than one NIC",
        },
      ],
    });
  });

  it("requires a MAC on every NIC when there are several", () => {
    expect(validateCloudInit({ network: [{ dhcp4: true }, { mac: "52:54:00:12:34:56" }] })).toEqual(
      {
        ok: false,
        failures: [
          {
            property: "cloudInit.network[0].mac",
            reason: "is required when there is more than one NIC",
          },
        ],
      },
    );
  });

  it("rejects #cloud-config user-data that is not valid YAML, naming the line", () => {
    expect(validateCloudInit({ userData: "#cloud-config\npackages:\n  - a\n b: c\n" })).toEqual({
      ok: false,
      failures: [
        {
          property: "cloudInit.userData",
          reason: "is not valid YAML: line 4: All mapping items must start at the same column",
        },
      ],
    });
  });

  it("rejects #cloud-config user-data that is not a mapping", () => {
    expect(validateCloudInit({ userData: "#cloud-config\n- a\n" })).toEqual({
      ok: false,
      failures: [
        {
          property: "cloudInit.userData",
          reason: "must be a YAML mapping after #cloud-config (key: value lines)",
        },
      ],
    });
  });

  it("passes a shell-script user-data through without parsing it", () => {
    expect(validateCloudInit({ userData: "#!/bin/sh\necho: : :\n" })).toEqual({
      ok: true,
      value: { userData: "#!/bin/sh\necho: : :\n" },
    });
  });

  it("rejects user-data over 64 KiB and typed fields next to userData", () => {
    expect(
      validateCloudInit({ userData: `#!/bin/sh\n${"x".repeat(65536)}`, packages: ["a"] }),
    ).toEqual({
      ok: false,
      failures: [
        { property: "cloudInit.userData", reason: "must be at most 65536 bytes" },
        {
          property: "cloudInit.packages",
          reason: "cannot be combined with userData, which replaces the generated user-data",
        },
      ],
    });
  });
});
