import { describe, expect, it } from "vitest";
import { resolveTemplate } from "../../../../provider/vm/steps/resolve-template";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

describe("resolveTemplate", () => {
  it("finds a template by VMID from the listing", async () => {
    const api = new FakeProxmoxApi();
    await expect(resolveTemplate(testContext(api), 9000, "pve1")).resolves.toEqual({
      node: "pve1",
      vmid: 9000,
      driveStorages: ["shared"],
    });
  });

  it("finds a template made moments ago that the listing does not show yet, on the VM's node", async () => {
    const api = new FakeProxmoxApi();
    api.listingOverride = (rows) => rows.filter((row) => row.vmid !== 9000);
    await expect(resolveTemplate(testContext(api), 9000, "pve1")).resolves.toEqual({
      node: "pve1",
      vmid: 9000,
      driveStorages: ["shared"],
    });
    expect(api.callsOf("clusterVms")).toHaveLength(2);
  });

  it("still reports a VMID that is nowhere as not found", async () => {
    const api = new FakeProxmoxApi();
    await expect(resolveTemplate(testContext(api), 4242, "pve1")).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("Template 4242 was not found on the cluster"),
    });
  });
});
