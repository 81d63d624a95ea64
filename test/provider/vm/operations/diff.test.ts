import { describe, expect, it } from "vitest";
import { diffVm } from "../../../../provider/vm/operations/diff";
import { UNKNOWN } from "../../../../provider/inputs/unknown";

const olds = {
  __provider: "require(...)",
  node: "pve1",
  template: 9000,
  isoStorage: "local",
  cores: 2,
  memory: 2048,
  diskSize: 20,
  tags: ["db", "prod"],
  description: "primary",
  started: true,
  network: { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" },
  cloudInit: { hostname: "db1" },
  vmid: 10_042,
  currentNode: "pve1",
};

const news = {
  __provider: "require(...)",
  node: "pve1",
  template: 9000,
  isoStorage: "local",
  cores: 2,
  memory: 2048,
  diskSize: 20,
  tags: ["db", "prod"],
  description: "primary",
  started: true,
  network: { bridge: "vmbr0", model: "virtio", ipv4: "dhcp" },
  cloudInit: { hostname: "db1" },
};

describe("diffVm", () => {
  it("compares a setting a released state did not store against its default", () => {
    // A state written before `nodeDrift` existed has none; check fills the default in the news.
    expect(diffVm(olds, { ...news, nodeDrift: "moveBack" }).changed).toEqual([]);
    expect(diffVm(olds, { ...news, nodeDrift: "accept" }).changed).toEqual(["nodeDrift"]);
  });

  it("reports no changes for identical inputs", () => {
    expect(diffVm(olds, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
      changed: [],
    });
  });

  it.each([
    ["node", { node: "pve2" }],
    ["template", { template: 9001 }],
    ["storage", { storage: "fast" }],
    ["isoStorage", { isoStorage: "shared" }],
  ])("replaces, create-first, when %s changes", (key, change) => {
    expect(diffVm(olds, { ...news, ...change })).toEqual({
      changes: true,
      replaces: [key],
      deleteBeforeReplace: false,
      changed: [key],
    });
  });

  it("replaces delete-first when the VMID is pinned and changes", () => {
    expect(diffVm(olds, { ...news, vmid: 10_043 })).toMatchObject({
      replaces: ["vmid"],
      deleteBeforeReplace: true,
    });
  });

  it("replaces delete-first when placement changes on a VM with a pinned name", () => {
    expect(diffVm({ ...olds, name: "db1" }, { ...news, name: "db1", node: "pve2" })).toMatchObject({
      replaces: ["node"],
      deleteBeforeReplace: true,
    });
  });

  it("does not treat the allocated VMID as a change when no VMID is pinned", () => {
    expect(diffVm(olds, news).changes).toBe(false);
  });

  it.each([
    ["cores", { cores: 4 }],
    ["memory", { memory: 4096 }],
    ["diskSize", { diskSize: 40 }],
    ["description", { description: "replica" }],
    ["started", { started: false }],
    ["network", { network: { bridge: "vmbr1", model: "virtio", ipv4: "dhcp" } }],
    ["cloudInit", { cloudInit: { hostname: "db2" } }],
  ])("updates in place when %s changes", (key, change) => {
    expect(diffVm(olds, { ...news, ...change })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      changed: [key],
    });
  });

  it("compares tags the way PVE stores them: case, order and duplicates do not count", () => {
    expect(diffVm(olds, { ...news, tags: ["Prod", "DB", "db"] }).changes).toBe(false);
    expect(diffVm(olds, { ...news, tags: ["db"] }).changed).toEqual(["tags"]);
  });

  it("treats an unknown placement during preview as a possible replacement", () => {
    expect(diffVm(olds, { ...news, node: UNKNOWN })).toMatchObject({
      changes: true,
      replaces: ["node"],
    });
  });

  it("treats an unknown in-place input as a possible update, not a replacement", () => {
    expect(diffVm(olds, { ...news, cores: UNKNOWN })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["cores"],
    });
    expect(diffVm(olds, { ...news, cloudInit: { hostname: UNKNOWN } }).changed).toEqual([
      "cloudInit",
    ]);
  });

  it("never reports a difference in __provider", () => {
    expect(diffVm(olds, { ...news, __provider: "require(other)" }).changes).toBe(false);
  });

  it("ignores settings the inputs leave unmanaged", () => {
    const { cores: _c, memory: _m, ...unmanaged } = news;
    expect(diffVm(olds, unmanaged).changes).toBe(false);
  });

  it("reports a removed pool as an in-place change, since the VM then leaves it", () => {
    const inPool = { ...olds, pool: "web", onBoot: true };
    const result = diffVm(inPool, news);
    expect(result.changed).toEqual(["pool"]);
    expect(result.replaces).toEqual([]);
  });

  it("shows a VM moved off its node as drift of currentNode, an update and not a replacement", () => {
    expect(diffVm({ ...olds, currentNode: "pve2" }, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      changed: ["currentNode"],
    });
  });

  it("does not report a move the user accepted", () => {
    const accepted = { nodeDrift: "accept" };
    expect(
      diffVm({ ...olds, ...accepted, currentNode: "pve2" }, { ...news, ...accepted }).changes,
    ).toBe(false);
  });
  it("reports an update a killed run left under its snapshot while rollbackOnFailure is on", () => {
    const on = { rollbackOnFailure: true };
    const left = { ...olds, ...on, unfinishedUpdate: "pp-update-0badc0de-1" };
    expect(diffVm(left, { ...news, ...on }).changed).toEqual(["unfinishedUpdate"]);
    // Turned off, the snapshot is sweep's to list, not an update's to finish.
    expect(diffVm({ ...olds, unfinishedUpdate: "pp-update-0badc0de-1" }, news).changes).toBe(false);
  });
});

describe("diffVm of an adopted VM", () => {
  const adoptedOlds = {
    __provider: "require(...)",
    node: "pve1",
    isoStorage: "local",
    adopt: { vmid: 4321 },
    cores: 2,
    vmid: 4321,
    currentNode: "pve1",
  };
  const adoptedNews = { __provider: "require(...)", node: "pve1", adopt: { vmid: 4321 }, cores: 2 };

  it("sees nothing to change when the program matches the VM", () => {
    expect(diffVm(adoptedOlds, adoptedNews)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates only what the program changed", () => {
    expect(diffVm(adoptedOlds, { ...adoptedNews, cores: 4 })).toMatchObject({
      changes: true,
      replaces: [],
      changed: ["cores"],
    });
  });

  it("records a template named later without replacing the VM", () => {
    expect(diffVm(adoptedOlds, { ...adoptedNews, template: 9000 })).toMatchObject({
      changes: false,
      replaces: [],
    });
  });

  it("refuses a replacement while the program names no template, saying what to set", () => {
    expect(() => diffVm(adoptedOlds, { ...adoptedNews, node: "pve2" })).toThrow(
      /node: changing it replaces VM 4321, which was adopted without a template.*Set template/,
    );
  });

  it("replaces it once the program names the template to clone", () => {
    expect(diffVm(adoptedOlds, { ...adoptedNews, node: "pve2", template: 9000 })).toMatchObject({
      changes: true,
      replaces: ["node"],
    });
  });
});
