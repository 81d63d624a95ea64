import { describe, expect, it } from "vitest";
import { checkTemplate, imageFormatOf } from "../../../provider/template/template-inputs";

const base = {
  identity: { project: "p", stack: "s", name: "debian" },
  url: "https://cloud.example/debian-12-genericcloud-amd64.qcow2",
  node: "pve1",
};

const failuresOf = (extra: Record<string, unknown>) =>
  checkTemplate({ ...base, ...extra }).failures;

describe("template inputs", () => {
  it("fills the defaults: local for the image, local-lvm for the disk, 1 core, 1024 MiB", () => {
    const { inputs, failures } = checkTemplate(base);
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({
      importStorage: "local",
      storage: "local-lvm",
      cores: 1,
      memory: 1024,
      bridge: "vmbr0",
    });
  });

  it("stores an Ubuntu .img as qcow2, and takes raw and vmdk", () => {
    expect(imageFormatOf("https://x/noble-server-cloudimg-amd64.img")).toBe("qcow2");
    expect(imageFormatOf("https://x/a.raw?sig=1")).toBe("raw");
    expect(imageFormatOf("https://x/a.vmdk")).toBe("vmdk");
    expect(failuresOf({ url: "https://x/noble-server-cloudimg-amd64.img" })).toEqual([]);
  });

  it("refuses a compressed image before any call, naming url", () => {
    expect(failuresOf({ url: "https://x/debian.qcow2.xz" })).toEqual([
      { property: "url", reason: expect.stringContaining("is a compressed image") },
    ]);
  });

  it("refuses credentials in the url, which would show in logs and in PVE", () => {
    const failures = failuresOf({ url: "https://me:s3cret@x/debian.qcow2" });
    expect(failures).toEqual([
      {
        property: "url",
        reason: expect.stringContaining("must not carry a user name or password"),
      },
    ]);
    expect(JSON.stringify(failures)).not.toContain("s3cret");
  });

  it("refuses an extension PVE cannot import, naming url", () => {
    expect(failuresOf({ url: "https://x/debian.iso" })).toEqual([
      { property: "url", reason: expect.stringContaining("must name a disk image ending .qcow2") },
    ]);
    expect(failuresOf({ url: "ftp://x/a.qcow2" })[0]?.reason).toBe(
      "must be an http:// or https:// URL",
    );
  });

  it("wants checksum and checksumAlgorithm together, with the algorithm's length", () => {
    expect(failuresOf({ checksum: "ab".repeat(32) })).toEqual([
      { property: "checksumAlgorithm", reason: "is required" },
    ]);
    expect(failuresOf({ checksum: "ab".repeat(32), checksumAlgorithm: "sha512" })).toEqual([
      { property: "checksum", reason: "must be 128 hex digits for sha512, got 64" },
    ]);
    expect(failuresOf({ checksum: "ab".repeat(32), checksumAlgorithm: "sha256" })).toEqual([]);
  });

  it("names a misspelt property and points at the CloudImageTemplate docs", () => {
    expect(failuresOf({ imageStorage: "local" })).toEqual([
      {
        property: "imageStorage",
        reason: expect.stringContaining("against the CloudImageTemplate docs"),
      },
    ]);
  });
});
