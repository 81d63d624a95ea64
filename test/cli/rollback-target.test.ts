import { describe, expect, it } from "vitest";
import { findRollbackVm, snapshotNameIn } from "../../cli/rollback-target.js";
import { VM_SNAPSHOT_TYPE, VM_TYPE } from "../../provider/entry.js";

const urn = (type: string, name: string) => `urn:pulumi:dev::app::${type}::${name}`;
const state = {
  deployment: {
    resources: [
      {
        urn: urn(VM_TYPE, "web"),
        type: VM_TYPE,
        outputs: { vmid: 100, node: "pve1", vmName: "web-7f3a", identityHash: "id-web" },
      },
      {
        urn: urn(VM_TYPE, "db"),
        type: VM_TYPE,
        outputs: { vmid: 101, node: "pve2", vmName: "db-01", identityHash: "id-db" },
      },
      {
        urn: urn(VM_SNAPSHOT_TYPE, "before upgrade"),
        type: VM_SNAPSHOT_TYPE,
        outputs: { vmid: 100, snapshotName: "before-upgrade" },
      },
    ],
  },
};

describe("rollback-target", () => {
  it("finds a VM of the state by its resource name, then by its VM name", () => {
    expect(findRollbackVm(state, "web")).toEqual({
      resourceName: "web",
      vmid: 100,
      node: "pve1",
      identityHash: "id-web",
    });
    expect(findRollbackVm(state, "db-01")?.vmid).toBe(101);
    expect(findRollbackVm(state, "cache")).toBeUndefined();
  });

  it("names the snapshot by a VmSnapshot of that VM, else as given", () => {
    expect(snapshotNameIn(state, 100, "before upgrade")).toBe("before-upgrade");
    expect(snapshotNameIn(state, 101, "before upgrade")).toBe("before upgrade");
    expect(snapshotNameIn(state, 100, "nightly")).toBe("nightly");
  });
});
