import { describe, expect, it } from "vitest";
import { pendingCreatesByCluster } from "../../cli/pending-clusters";
import { VM_TYPE } from "../../provider/entry";

const STACK = "urn:pulumi:dev::two-clusters::";
const DEFAULT = `${STACK}pulumi:providers:pulumi-nodejs::default::1111`;
const DC2_URN = `${STACK}pulumi:providers:pulumi-nodejs::dc2`;
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** A pending create of a VM whose outputs already name its identity. */
const creating = (identity: string, provider: string) => ({
  type: "creating",
  resource: { type: VM_TYPE, provider, outputs: { identityHash: identity } },
});

const state = {
  deployment: {
    resources: [
      {
        urn: DC2_URN,
        type: "pulumi:providers:pulumi-nodejs",
        inputs: {
          "proxmox:endpoint": "https://pve.dc2:8006",
          "proxmox:username": "ops@pve",
          // As `stack export --show-secrets` writes a secret: its JSON text in `plaintext`.
          "proxmox:password": {
            [SECRET_SIG]: "1b47061264138c4ac30d75fd1eb44270",
            plaintext: '"pw"',
          },
        },
      },
    ],
    pending_operations: [
      creating("aaaa", DEFAULT),
      creating("bbbb", `${DC2_URN}::2222`),
      creating("cccc", `${DC2_URN}::2222`),
      creating("dddd", `${DC2_URN}::2222`),
    ],
  },
};

describe("pending-clusters", () => {
  it("groups pending creates by the cluster of their provider, with an explicit one's login", () => {
    const clusters = pendingCreatesByCluster(state, new Set(["aaaa", "bbbb", "cccc"]), {});
    expect(clusters.map((c) => [c.provider, [...c.identities]])).toEqual([
      [undefined, ["aaaa"]],
      ["dc2", ["bbbb", "cccc"]],
    ]);
    expect(clusters[0]?.connection).toBeUndefined();
    const dc2 = clusters[1]?.connection;
    expect(dc2?.origin).toBe("https://pve.dc2:8006");
    expect(dc2?.login).toMatchObject({ kind: "password", username: "ops@pve" });
    expect(dc2?.login.kind === "password" && dc2.login.password.reveal()).toBe("pw");
  });

  it("refuses an explicit provider's bad settings with the stack config's message", () => {
    const broken = {
      deployment: {
        resources: [
          {
            urn: DC2_URN,
            type: "pulumi:providers:pulumi-nodejs",
            inputs: { "proxmox:endpoint": "https://pve.dc2:8006" },
          },
        ],
        pending_operations: [creating("bbbb", `${DC2_URN}::2222`)],
      },
    };
    expect(() => pendingCreatesByCluster(broken, new Set(["bbbb"]), {})).toThrow(
      "Proxmox connection config: apiToken is required",
    );
  });
});
