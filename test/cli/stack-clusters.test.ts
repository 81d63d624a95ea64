import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import {
  explicitProviders,
  inProgramDir,
  providerConnection,
  providerOf,
  usesDefaultProvider,
} from "../../cli/stack-clusters";
import { TEMPLATE_TYPE, VM_TYPE } from "../../provider/entry";

const STACK = "urn:pulumi:dev::two-clusters::";
const PROVIDER_TYPE = "pulumi:providers:pulumi-nodejs";
const providerUrn = (name: string) => `${STACK}${PROVIDER_TYPE}::${name}`;
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

const provider = (name: string, inputs: Record<string, unknown>) => ({
  urn: providerUrn(name),
  type: PROVIDER_TYPE,
  inputs,
});
const made = (type: string, through: string) => ({
  urn: `${STACK}${type}::x`,
  type,
  provider: `${providerUrn(through)}::0000`,
});

describe("stack-clusters", () => {
  it("names a provider reference, the engine's default ones as default", () => {
    expect(providerOf(`${providerUrn("dc2")}::1234`)).toEqual({
      urn: providerUrn("dc2"),
      name: "dc2",
    });
    expect(providerOf(`${providerUrn("default_3_276_0")}::1`).name).toBe("default");
    expect(providerOf(undefined).name).toBe("default");
  });

  it("finds the explicit providers with settings or with a VM or template, their secrets in plain text", () => {
    const state = {
      deployment: {
        resources: [
          provider("default", {}),
          provider("dc2", {
            "proxmox:endpoint": "https://pve.dc2:8006",
            "proxmox:apiToken": { [SECRET_SIG]: "1", plaintext: '"a@pam!t=s"' },
          }),
          // Leaves every setting to PROXMOX_VE_*, and makes a template.
          provider("env", {}),
          // Another package's dynamic provider: not a cluster.
          provider("other", { "other:key": "v" }),
          made(TEMPLATE_TYPE, "env"),
        ],
      },
    };
    expect(explicitProviders(state)).toEqual([
      {
        name: "dc2",
        urn: providerUrn("dc2"),
        settings: { "proxmox:endpoint": "https://pve.dc2:8006", "proxmox:apiToken": "a@pam!t=s" },
      },
      { name: "env", urn: providerUrn("env"), settings: {} },
    ]);
  });

  it("tells whether a VM, a template or a pending create uses the stack config's cluster", () => {
    const onDc2 = { deployment: { resources: [made(VM_TYPE, "dc2")] } };
    expect(usesDefaultProvider(onDc2)).toBe(false);
    const pending = {
      deployment: {
        resources: [made(VM_TYPE, "dc2")],
        pending_operations: [{ resource: made(VM_TYPE, "default") }],
      },
    };
    expect(usesDefaultProvider(pending)).toBe(true);
  });

  it("reads a relative caCert or token file from the program's directory, PEM text as it is", () => {
    const settings: Record<string, string> = {
      "proxmox:caCert": "dc2-ca.pem",
      "proxmox:apiTokenFile": "/run/secrets/token",
      "proxmox:endpoint": "https://pve:8006",
    };
    const get = inProgramDir((key) => settings[key], "/work/app");
    expect(get("proxmox:caCert")).toBe("/work/app/dc2-ca.pem");
    expect(get("proxmox:apiTokenFile")).toBe("/run/secrets/token");
    expect(get("proxmox:endpoint")).toBe("https://pve:8006");
    settings["proxmox:caCert"] = "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----";
    expect(get("proxmox:caCert")).toBe(settings["proxmox:caCert"]);
  });

  it("connects as a provider's settings say, its CA file read from the program's directory", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-clusters-"));
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    fs.writeFileSync(path.join(dir, "dc2-ca.pem"), pem);
    const dc2 = {
      name: "dc2",
      urn: providerUrn("dc2"),
      settings: {
        "proxmox:endpoint": "https://pve.dc2:8006/api2/json",
        "proxmox:apiToken": "ops@pve!ci=5e1f0c2a",
        "proxmox:caCert": "dc2-ca.pem",
      },
    };
    const connection = providerConnection(dc2, {}, dir);
    expect([connection.origin, connection.caCert]).toEqual(["https://pve.dc2:8006", pem]);
  });

  it("refuses a provider's bad setting naming the provider and where it was read", () => {
    const dc2 = { name: "dc2", urn: providerUrn("dc2"), settings: { "proxmox:endpoint": "x" } };
    expect(() => providerConnection(dc2, {}, "/")).toThrow(
      /endpoint .*; read from provider dc2's inputs in the state \(its settings as the last `pulumi up` recorded them\)$/,
    );
  });
});
