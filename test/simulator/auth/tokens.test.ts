import { describe, expect, it } from "vitest";
import { TokenStore } from "../../../simulator/auth/tokens.js";

const store = new TokenStore([
  {
    tokenId: "ops@pve!deploy",
    secret: "s3cret",
    acls: [
      { path: "/vms", privileges: ["VM.Audit", "VM.PowerMgmt"] },
      { path: "/vms/100", privileges: ["VM.Audit"] },
      { path: "/storage/local", privileges: ["Datastore.Audit"], propagate: false },
    ],
  },
]);

describe("tokens", () => {
  it("verifies PVEAPIToken headers with '=' or a space and splits at the last '='", () => {
    expect(store.verify("PVEAPIToken=ops@pve!deploy=s3cret")).toEqual({
      ok: true,
      tokenId: "ops@pve!deploy",
    });
    expect(store.verify("PVEAPIToken ops@pve!deploy=s3cret")).toEqual({
      ok: true,
      tokenId: "ops@pve!deploy",
    });
  });

  it("answers 'No ticket' without credentials and 'Authentication failed!' for a bad secret", () => {
    expect(store.verify(undefined)).toEqual({ ok: false, reason: "No ticket" });
    expect(store.verify("PVEAPIToken=ops@pve!deploy=nope")).toEqual({
      ok: false,
      reason: "Authentication failed!",
      tokenId: "ops@pve!deploy",
    });
  });

  it("refuses a removed token as one with a bad secret", () => {
    const own = new TokenStore([]);
    const header = `PVEAPIToken=${own.add({ tokenId: "ops@pve!old", secret: "x", acls: [] })}`;
    expect(own.verify(header).ok).toBe(true);
    expect(own.remove("ops@pve!old")).toBe(true);
    expect(own.verify(header)).toEqual({
      ok: false,
      reason: "Authentication failed!",
      tokenId: "ops@pve!old",
    });
    expect(own.remove("ops@pve!old")).toBe(false);
  });

  it("lets a deeper ACL replace the inherited privileges", () => {
    expect([...store.privileges("ops@pve!deploy", "/vms/101").keys()]).toEqual([
      "VM.Audit",
      "VM.PowerMgmt",
    ]);
    expect([...store.privileges("ops@pve!deploy", "/vms/100").keys()]).toEqual(["VM.Audit"]);
  });

  it("applies a non-propagating ACL only to its own path", () => {
    expect(store.has("ops@pve!deploy", "/storage/local", "Datastore.Audit")).toBe(true);
    expect(store.has("ops@pve!deploy", "/storage/local/x", "Datastore.Audit")).toBe(false);
  });
});
