import { describe, expect, it } from "vitest";
import { comparableInput, deleteMarkedVm, identityOfInputs } from "../../provider/entry";
import { identityOf } from "../../provider/vm/identity";
import { checkVm } from "../../provider/vm/operations/check";
import { createVm } from "../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../provider/vm/steps/resolved-inputs";
import { FakeProxmoxApi } from "../support/fake-api";
import { testContext } from "../support/test-context";

const owner = { project: "infra", stack: "dev", name: "db" };

describe("entry", () => {
  it("deletes a VM found by its mark: stop, seed, destroy, with nothing left", async () => {
    const api = new FakeProxmoxApi();
    const inputs = checkVm({}, { identity: owner, node: "pve1", template: 9000 })
      .inputs as ResolvedInputs;
    const state = await createVm(testContext(api), inputs);
    api.calls.length = 0;

    await deleteMarkedVm(
      testContext(api),
      { vmid: state.vmid, identity: state.identityHash, name: state.vmName, isoStorage: "local" },
      60_000,
    );

    expect(api.vms.has(state.vmid)).toBe(false);
    expect(api.isosOn("local", "pve1")).toEqual([]);
    expect(api.callsOf("stopVm")).toHaveLength(1);
  });

  it("refuses to delete a VM whose name is not the one its mark was found with", async () => {
    const api = new FakeProxmoxApi();
    const inputs = checkVm({}, { identity: owner, node: "pve1", template: 9000 })
      .inputs as ResolvedInputs;
    const state = await createVm(testContext(api), inputs);

    const vm = {
      vmid: state.vmid,
      identity: state.identityHash,
      name: "other",
      isoStorage: "local",
    };
    await expect(deleteMarkedVm(testContext(api), vm, 60_000)).rejects.toMatchObject({
      code: "NOT_OURS",
    });
    expect(api.vms.has(state.vmid)).toBe(true);
  });

  it("derives a stored input set's identity, with the spec's default for a left-out isoStorage", () => {
    const expected = identityOf(owner, { node: "pve1", template: 9000, isoStorage: "local" });
    expect(identityOfInputs({ identity: owner, node: "pve1", template: 9000 })).toBe(expected);
    expect(
      identityOfInputs({ identity: owner, node: "pve1", template: 9000, isoStorage: "ceph" }),
    ).not.toBe(expected);
  });

  it("has no identity for inputs without an owner or a placement", () => {
    expect(identityOfInputs({ node: "pve1", template: 9000 })).toBeUndefined();
    expect(identityOfInputs({ identity: owner, template: 9000 })).toBeUndefined();
  });

  it("compares tags as PVE stores them and leaves other values and blinded secrets alone", () => {
    expect(comparableInput("tags", ["Web", "db", "web"])).toEqual(["db", "web"]);
    expect(comparableInput("tags", "[secret]")).toBe("[secret]");
    expect(comparableInput("description", "Web")).toBe("Web");
    expect(comparableInput("tags", undefined)).toBeUndefined();
  });
});
