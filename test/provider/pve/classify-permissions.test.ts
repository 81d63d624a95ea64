import { describe, expect, it } from "vitest";
import { classify } from "../../../provider/pve/classify.js";
import { Secret } from "../../../provider/pve/secret.js";

describe("classify", () => {
  it("parses the privilege and ACL path of a 403", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
    );
    expect(error.context).toMatchObject({ aclPath: "/vms/100", privilege: "VM.Clone" });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was denied: the API token lacks " +
        "VM.Clone on /vms/100. Grant a role with it on /vms/100 (pveum acl modify /vms/100 " +
        "--tokens <token-id> --roles <role>); a token with privilege separation needs the ACL " +
        "on the token itself.",
    );
  });

  it("names the token that lacks the privilege, and the pveum line for it", () => {
    const login = { kind: "token", tokenId: "ci@pve!deploy", secret: new Secret("s-1") } as const;
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
      login,
    );
    expect(error.message).toContain("the API token ci@pve!deploy lacks VM.Clone on /vms/100");
    expect(error.message).toContain(
      "pveum acl modify /vms/100 --tokens ci@pve!deploy --roles <role>",
    );
    expect(error.message).not.toContain("s-1");
  });

  it("names the user of a password login that lacks the privilege, and grants it to the user", () => {
    const login = { kind: "password", username: "ops@pve", password: new Secret("pw-1") } as const;
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
      login,
    );
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was denied: the user ops@pve lacks VM.Clone " +
        "on /vms/100. Grant a role with it on /vms/100 (pveum acl modify /vms/100 --users ops@pve --roles <role>).",
    );
  });

  it("reads a clone into a missing pool, which PVE refuses as a 403, as a pool to create", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/9000/clone",
      403,
      "Permission check failed (pool 'web' does not exist)",
      undefined,
    );
    expect([error.code, error.transient]).toEqual(["NOT_FOUND", false]);
    expect(error.message).toContain(
      "failed: resource pool 'web' does not exist. Create it (pveum pool add web) or set pool " +
        "to an existing pool.",
    );
  });

  it("reads a key only root@pam may set as a login to change, not an ACL to grant", () => {
    const error = classify(
      "PUT",
      "/nodes/pve1/qemu/100/config",
      500,
      "only root can set 'affinity' config",
      undefined,
    );
    expect([error.code, error.transient]).toEqual(["FORBIDDEN", false]);
    expect(error.message).toBe(
      "PUT /nodes/pve1/qemu/100/config (VM 100 on pve1) was refused: PVE lets only root@pam set " +
        "'affinity', whatever the ACLs. Log in as root@pam with a password (stack config " +
        "proxmox:username and proxmox:password) or leave out the input that writes 'affinity'.",
    );
  });

  it("lists every privilege of an any-of 403", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      403,
      "Permission check failed (/vms/100, VM.Config.Network|VM.Config.Options)",
      undefined,
    );
    expect(error.context.privilege).toBe("VM.Config.Network|VM.Config.Options");
    expect(error.message).toContain(
      "lacks one of VM.Config.Network, VM.Config.Options on /vms/100",
    );
  });

  it("parses the tag-permission 403 down to the privilege", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      403,
      "Permission check failed (/, Sys.Modify for modifying tag 'prod')",
      undefined,
    );
    expect(error.context).toMatchObject({ aclPath: "/", privilege: "Sys.Modify" });
  });

  it("keeps a 403 without an ACL path as PVE's text", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (user != root@pam)",
      undefined,
    );
    expect(error.code).toBe("FORBIDDEN");
    expect(error.context.aclPath).toBeUndefined();
    expect(error.message).toContain("(403 Permission check failed (user != root@pam))");
  });

  it("names the token id (never the secret) in a 401", () => {
    const login = {
      kind: "token",
      tokenId: "pulumi@pve!ci",
      secret: new Secret("s3cr3t"),
    } as const;
    const error = classify("GET", "/version", 401, "No ticket", undefined, login);
    expect(error.message).toBe(
      "GET /version was not authenticated (401 No ticket). Check the API token pulumi@pve!ci: " +
        "its id and secret, that it exists and has not expired, and that its user is enabled.",
    );
  });

  it("names the user and the settings when PVE refuses a password login", () => {
    const login = { kind: "password", username: "ops@pve", password: new Secret("pw-1") } as const;
    // pve-access-control PVE/API2/AccessControl.pm create_ticket: one text for every cause.
    const refused = classify(
      "POST",
      "/access/ticket",
      401,
      "authentication failure",
      undefined,
      login,
    );
    expect(refused).toMatchObject({ code: "AUTH", transient: false });
    expect(refused.message).toBe(
      "POST /access/ticket was not authenticated (401 authentication failure). PVE refused the " +
        "login of ops@pve. Check `proxmox:username` and `proxmox:password` (or " +
        "PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD): the user exists in that realm and is " +
        "enabled, and the password is current.",
    );
    const ticket = classify("GET", "/version", 401, "No ticket", undefined, login);
    expect(ticket.message).toBe(
      "GET /version was not authenticated (401 No ticket). PVE refused a new login ticket of " +
        "ops@pve: check that the user is enabled and has not expired.",
    );
  });
});
