import { describe, expect, it, vi } from "vitest";
import {
  coalescedApi,
  ListingCoalescer,
  NodeListings,
  sharedListingCoalescer,
  sharedNodeListings,
  sharedNodeStorages,
} from "../../../../provider/pve/api/coalesced-api.js";
import type {
  ClusterVm,
  NodeStorage,
  ProxmoxApi,
} from "../../../../provider/pve/api/proxmox-api.js";
import { PermanentError } from "../../../../provider/pve/errors.js";

const row = (vmid: number): ClusterVm => ({ vmid, node: "pve1", type: "qemu", status: "running" });

/** A listing whose requests resolve only when the test says so. */
function deferredListing() {
  const pending: ((rows: readonly ClusterVm[]) => void)[] = [];
  const fetch = vi.fn(() => new Promise<readonly ClusterVm[]>((resolve) => pending.push(resolve)));
  return { fetch, resolveNext: (rows: readonly ClusterVm[]) => pending.shift()?.(rows) };
}

describe("coalesced-api", () => {
  it("serves concurrent callers from one request", async () => {
    const coalescer = new ListingCoalescer({ freshnessMs: 0 });
    const { fetch, resolveNext } = deferredListing();
    const calls = Array.from({ length: 100 }, () => coalescer.get(fetch));
    resolveNext([row(100)]);
    const results = await Promise.all(calls);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(coalescer.requests).toBe(1);
    expect(new Set(results).size).toBe(1);
  });

  it("serves a listing of any age to a caller that asks for any age, until invalidated", async () => {
    let now = 0;
    const coalescer = new ListingCoalescer({ freshnessMs: 1_000, now: () => now });
    const fetch = vi.fn(() => Promise.resolve([row(100)]));
    await coalescer.get(fetch);
    now = 60_000;
    await coalescer.get(fetch, { anyAge: true });
    expect(fetch).toHaveBeenCalledTimes(1);
    coalescer.invalidate();
    await coalescer.get(fetch, { anyAge: true });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("serves a finished listing during the freshness window, then fetches again", async () => {
    let now = 0;
    const coalescer = new ListingCoalescer({ freshnessMs: 1_000, now: () => now });
    const fetch = vi.fn(() => Promise.resolve([row(100)]));
    await coalescer.get(fetch);
    now = 999;
    await coalescer.get(fetch);
    expect(fetch).toHaveBeenCalledTimes(1);
    now = 1_000;
    await coalescer.get(fetch);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("after invalidate, neither serves the cache nor joins a request started before", async () => {
    const coalescer = new ListingCoalescer({ freshnessMs: 60_000 });
    const { fetch, resolveNext } = deferredListing();
    const before = coalescer.get(fetch);
    coalescer.invalidate();
    const after = coalescer.get(fetch);
    expect(fetch).toHaveBeenCalledTimes(2);
    resolveNext([row(100)]);
    resolveNext([row(100), row(101)]);
    expect((await before).length).toBe(1);
    expect((await after).length).toBe(2);
    // The old listing must not land in the cache after the invalidation.
    expect((await coalescer.get(fetch)).length).toBe(2);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("does not cache a failure", async () => {
    const coalescer = new ListingCoalescer({ freshnessMs: 60_000 });
    const fetch = vi
      .fn<() => Promise<readonly ClusterVm[]>>()
      .mockRejectedValueOnce(new PermanentError("AUTH", "401"))
      .mockResolvedValueOnce([row(100)]);
    await expect(coalescer.get(fetch)).rejects.toMatchObject({ code: "AUTH" });
    await expect(coalescer.get(fetch)).resolves.toEqual([row(100)]);
  });

  it("retries with its own fetch when the request it joined was cancelled by another caller", async () => {
    const coalescer = new ListingCoalescer({ freshnessMs: 0 });
    const cancelled = vi.fn(() => Promise.reject(new PermanentError("ABORTED", "cancelled")));
    const own = vi.fn(() => Promise.resolve([row(100)]));
    const first = coalescer.get(cancelled);
    const second = coalescer.get(own);
    await expect(first).rejects.toMatchObject({ code: "ABORTED" });
    await expect(second).resolves.toEqual([row(100)]);
    expect(own).toHaveBeenCalledTimes(1);
  });

  it("wraps an api so clusterVms is coalesced and invalidateClusterVms is wired", async () => {
    const clusterVms = vi.fn(() => Promise.resolve([row(100)]));
    const nextVmid = vi.fn(() => Promise.resolve(101));
    const api = coalescedApi(
      { clusterVms, nextVmid } as unknown as ProxmoxApi,
      new ListingCoalescer(),
    );
    await Promise.all([api.clusterVms(), api.clusterVms()]);
    await api.clusterVms();
    expect(clusterVms).toHaveBeenCalledTimes(1);
    api.invalidateClusterVms?.();
    await api.clusterVms();
    expect(clusterVms).toHaveBeenCalledTimes(2);
    await expect(api.nextVmid()).resolves.toBe(101);
  });

  it("shares one coalescer per key across the process", () => {
    const key = `https://pve-${Math.random()}:8006`;
    expect(sharedListingCoalescer(key)).toBe(sharedListingCoalescer(key));
    expect(sharedListingCoalescer(key)).not.toBe(sharedListingCoalescer(`${key}/other`));
    expect(sharedNodeListings(key)).toBe(sharedNodeListings(key));
    expect(sharedNodeListings(key)).not.toBe(sharedNodeListings(`${key}/other`));
    expect(sharedNodeStorages(key)).toBe(sharedNodeStorages(key));
    expect(sharedNodeStorages(key)).not.toBe(sharedNodeStorages(`${key}/other`));
  });

  it("asks for each node's storages once for every create that starts together, even across VM writes", async () => {
    const nodeStorages = vi.fn((node: string) => Promise.resolve([{ storage: `local-${node}` }]));
    const cloneVm = vi.fn(() => Promise.resolve("UPID:pve1:1:2:3:qmclone:100:root@pam:"));
    const api = coalescedApi(
      { nodeStorages, cloneVm } as unknown as ProxmoxApi,
      new ListingCoalescer(),
      new NodeListings(),
      new NodeListings<NodeStorage>(),
    );
    await Promise.all([
      api.nodeStorages("pve1"),
      api.nodeStorages("pve1"),
      api.nodeStorages("pve2"),
    ]);
    await api.cloneVm({ node: "pve1", vmid: 9000, newid: 100 } as never);
    await expect(api.nodeStorages("pve1")).resolves.toEqual([{ storage: "local-pve1" }]);
    expect(nodeStorages.mock.calls).toEqual([["pve1"], ["pve2"]]);
  });

  it("asks for the storages again once the shared answer is older than its freshness, and the nodes always", async () => {
    let now = 0;
    const nodeStorages = vi.fn(() => Promise.resolve([{ storage: "local" }]));
    const nodes = vi.fn(() => Promise.resolve([{ node: "pve1", status: "online" }]));
    const api = coalescedApi(
      { nodeStorages, nodes } as unknown as ProxmoxApi,
      new ListingCoalescer(),
      new NodeListings(),
      new NodeListings<NodeStorage>({ freshnessMs: 2_000, now: () => now }),
    );
    await Promise.all([api.nodeStorages("pve1"), api.nodes(), api.nodes()]);
    now = 1_999;
    await api.nodeStorages("pve1");
    expect(nodeStorages).toHaveBeenCalledTimes(1);
    now = 2_000;
    await api.nodeStorages("pve1");
    expect(nodeStorages).toHaveBeenCalledTimes(2);
    expect(nodes).toHaveBeenCalledTimes(2);
  });

  it("serves nodeVms from one request per node, for every caller of that node", async () => {
    const nodeVms = vi.fn((node: string) =>
      Promise.resolve([{ vmid: node === "pve1" ? 100 : 101, status: "running" }]),
    );
    const api = coalescedApi({ nodeVms } as unknown as ProxmoxApi, new ListingCoalescer());
    const answers = await Promise.all([
      api.nodeVms("pve1"),
      api.nodeVms("pve2"),
      api.nodeVms("pve1"),
      api.nodeVms("pve2"),
    ]);
    expect(answers.map((rows) => rows[0]?.vmid)).toEqual([100, 101, 100, 101]);
    expect(nodeVms.mock.calls).toEqual([["pve1"], ["pve2"]]);
  });

  it("lists the nodes again after any request that is not a read, but not after a read", async () => {
    const nodeVms = vi.fn(() => Promise.resolve([{ vmid: 100, status: "running" }]));
    const vmPending = vi.fn(() => Promise.resolve({ config: {}, current: {}, pending: [] }));
    const stopVm = vi.fn(() => Promise.resolve("UPID:pve1:1:2:3:qmstop:100:root@pam:"));
    const api = coalescedApi(
      { nodeVms, vmPending, stopVm } as unknown as ProxmoxApi,
      new ListingCoalescer(),
    );
    await api.nodeVms("pve1");
    await api.vmPending("pve1", 100);
    await api.nodeVms("pve1");
    expect(nodeVms).toHaveBeenCalledTimes(1);
    await api.stopVm("pve1", 100);
    await api.nodeVms("pve1");
    expect(nodeVms).toHaveBeenCalledTimes(2);
    api.invalidateNodeVms?.();
    await api.nodeVms("pve1");
    expect(nodeVms).toHaveBeenCalledTimes(3);
  });
});
