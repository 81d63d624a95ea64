import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";

const adopting = {
  __provider: "require(...)",
  identity: { project: "infra", stack: "dev", name: "legacy" },
  node: "pve1",
  adopt: { vmid: 4321 },
  cores: 4,
};

describe("checkVm with adopt: { vmid }", () => {
  it("needs no template, and applies no default of what PVE sees", () => {
    const result = checkVm({}, adopting);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ adopt: { vmid: 4321 }, cores: 4, isoStorage: "local" });
    expect(result.inputs).not.toHaveProperty("network");
    expect(result.inputs).not.toHaveProperty("agent");
    expect(result.inputs).not.toHaveProperty("started");
  });

  it("keeps what the program does set, defaults of the provider's own settings included", () => {
    const result = checkVm({}, { ...adopting, started: false, network: { bridge: "vmbr1" } });
    expect(result.inputs).toMatchObject({
      started: false,
      network: { bridge: "vmbr1" },
      rebootPolicy: "allow",
      timeouts: { taskMs: 120_000 },
    });
  });

  it("stays without defaults when check runs again on its own output (create, update)", () => {
    const once = checkVm({}, adopting).inputs;
    expect(checkVm({}, once).inputs).toEqual(once);
  });

  it("refuses the inputs an adopted VM cannot take, naming each", () => {
    const result = checkVm(
      {},
      {
        ...adopting,
        vmid: 4321,
        name: "web",
        cloudInit: { hostname: "web" },
      },
    );
    expect(result.failures.map((f) => f.property)).toEqual(["vmid", "name", "cloudInit"]);
    expect(result.failures[0]?.reason).toBe(
      "cannot be combined with adopt: the VM's VMID is adopt.vmid: remove vmid",
    );
  });

  it("still requires a template without adopt, and with adopt: true", () => {
    const { adopt: _, ...plain } = adopting;
    for (const inputs of [plain, { ...plain, adopt: true }]) {
      expect(checkVm({}, inputs).failures).toEqual([
        { property: "template", reason: "is required (only adopt: { vmid } may leave it out)" },
      ]);
    }
  });

  it("refuses a VMID Proxmox cannot have", () => {
    const result = checkVm({}, { ...adopting, adopt: { vmid: 42 } });
    expect(result.failures).toEqual([
      expect.objectContaining({ property: "adopt.vmid", reason: "Proxmox VMIDs start at 100" }),
    ]);
  });
});
