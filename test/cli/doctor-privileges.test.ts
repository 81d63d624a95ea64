import { describe, expect, it } from "vitest";
import { privilegesOn, requirements, roleCommands, satisfied } from "../../cli/doctor-privileges";

/** A cloud-image template whose image lands on `local`, the ISO storage too. */
const CLOUD_IMAGE_ON_LOCAL = {
  templateVmid: undefined,
  diskStorages: [],
  isoStorage: "local",
  bridges: [],
  nodes: ["pve1"],
  pveMajor: 8,
  cloudImage: { importStorage: "local", storage: "local-lvm" },
};

describe("doctor-privileges", () => {
  it("takes only propagated privileges from the deepest listed ancestor", () => {
    const perms = { "/": { "Sys.Audit": 1 }, "/vms": { "VM.Audit": 1, "VM.Allocate": 0 } };
    expect([...privilegesOn(perms, "/vms/100")]).toEqual(["VM.Audit"]);
    expect([...privilegesOn(perms, "/vms")].sort()).toEqual(["VM.Allocate", "VM.Audit"]);
    expect([...privilegesOn(perms, "/nodes/pve1")]).toEqual(["Sys.Audit"]);
    expect([...privilegesOn({}, "/vms")]).toEqual([]);
  });

  it("lets a deeper ACL path replace what the ancestors grant", () => {
    const perms = { "/": { "VM.Audit": 1 }, "/vms/9000": { "VM.Clone": 1 } };
    expect([...privilegesOn(perms, "/vms/9000")]).toEqual(["VM.Clone"]);
  });

  it("accepts any privilege of an any-of requirement", () => {
    const need = {
      privilege: "VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted",
      path: "/vms",
      why: "",
    };
    expect(satisfied({ "/vms": { "VM.GuestAgent.Unrestricted": 1 } }, need)).toBe(true);
    expect(satisfied({ "/vms": { "VM.Monitor": 1 } }, need)).toBe(false);
  });

  it("accepts the broader alternative of a requirement only when it holds all of it", () => {
    const [need] = requirements(CLOUD_IMAGE_ON_LOCAL).filter(
      (n) => n.privilege === "Sys.AccessNetwork",
    );
    expect(need?.path).toBe("/nodes/pve1");
    if (need === undefined) return;
    expect(satisfied({ "/nodes/pve1": { "Sys.AccessNetwork": 0 } }, need)).toBe(true);
    expect(satisfied({ "/": { "Sys.Audit": 1, "Sys.Modify": 1 } }, need)).toBe(true);
    expect(satisfied({ "/": { "Sys.Modify": 1 } }, need)).toBe(false);
  });

  it("lists a privilege the seeds and the cloud image both need on one storage once, with both reasons", () => {
    const needs = requirements(CLOUD_IMAGE_ON_LOCAL).filter((n) => n.path === "/storage/local");
    const upload = needs.filter((n) => n.privilege === "Datastore.AllocateTemplate");
    expect(upload).toEqual([
      {
        privilege: "Datastore.AllocateTemplate",
        path: "/storage/local",
        why: "upload the seed ISO; download the cloud image",
      },
    ]);
    const grants = needs.map((n) => `${n.privilege} ${n.path}`);
    expect(new Set(grants).size).toBe(grants.length);
  });

  it("asks PVE 9 for the guest-agent privilege and PVE 7 for no SDN.Use", () => {
    const base = {
      templateVmid: 9000,
      diskStorages: ["local-lvm"],
      isoStorage: "local",
      bridges: ["vmbr0"],
      nodes: ["pve1"],
    };
    const nine = requirements({ ...base, pveMajor: 9 }).map((r) => r.privilege);
    const seven = requirements({ ...base, pveMajor: 7 }).map((r) => r.privilege);
    expect(nine).toContain("VM.GuestAgent.Audit|VM.GuestAgent.Unrestricted");
    expect(nine).not.toContain("VM.Monitor");
    expect(seven).toContain("VM.Monitor");
    expect(seven).not.toContain("SDN.Use");
  });

  it("lists Mapping.Use and Mapping.Audit on each resource mapping the VMs use, and no other", () => {
    const needs = requirements({
      ...CLOUD_IMAGE_ON_LOCAL,
      mappings: [
        { type: "pci", id: "gpu0" },
        { type: "dir", id: "datasets" },
      ],
    });
    expect(
      needs.filter((n) => n.path.startsWith("/mapping")).map((n) => `${n.privilege} ${n.path}`),
    ).toEqual([
      "Mapping.Use /mapping/pci/gpu0",
      "Mapping.Audit|Mapping.Use /mapping/pci/gpu0",
      "Mapping.Use /mapping/dir/datasets",
      "Mapping.Audit|Mapping.Use /mapping/dir/datasets",
    ]);
    expect(requirements(CLOUD_IMAGE_ON_LOCAL).some((n) => n.path.startsWith("/mapping"))).toBe(
      false,
    );
  });

  it("grants the role on the fewest paths that cover every requirement", () => {
    const needs = [
      { privilege: "VM.Clone", path: "/vms/9000", why: "" },
      { privilege: "VM.Allocate", path: "/vms", why: "" },
      { privilege: "Datastore.Audit", path: "/storage/local", why: "" },
    ];
    expect(roleCommands(needs, { tokenId: "ci@pve!deploy" })).toEqual([
      'pveum role add PulumiProxmox -privs "Datastore.Audit VM.Allocate VM.Clone"',
      "pveum acl modify /storage/local -user 'ci@pve' -role PulumiProxmox",
      "pveum acl modify /storage/local -token 'ci@pve!deploy' -role PulumiProxmox",
      "pveum acl modify /vms -user 'ci@pve' -role PulumiProxmox",
      "pveum acl modify /vms -token 'ci@pve!deploy' -role PulumiProxmox",
    ]);
  });
});
