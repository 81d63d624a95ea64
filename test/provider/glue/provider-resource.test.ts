import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VmFleet } from "../../../components";
import { CloudImageTemplate, Provider, ProxmoxVm } from "../../../provider";

interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  provider: string | undefined;
}

let registered: Registered[] = [];

/** How the mock monitor shows a secret input: Pulumi's secret envelope. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({
          type: args.type,
          name: args.name,
          inputs: args.inputs,
          provider: args.provider,
        });
        return { id: `${args.name}-id`, state: { ...args.inputs, vmid: 100 } };
      },
      call: (args) => args.inputs,
    },
    "providers-project",
    "dev",
    false,
  );
});
beforeEach(() => {
  registered = [];
});

function resolve<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((done) => output.apply(done));
}

/** The provider reference a resource registers with: `<urn>::<id>`. */
async function reference(provider: Provider): Promise<string> {
  return `${await resolve(provider.urn)}::${await resolve(provider.id)}`;
}

describe("provider-resource", () => {
  it("registers a pulumi-nodejs provider configured by the stack config's keys, as text, the password secret", async () => {
    const dc2 = new Provider("dc2", {
      endpoint: "https://pve.dc2:8006",
      username: "ops@pve",
      password: pulumi.output("pw"),
      insecure: true,
      maxConnections: 4,
    });
    await resolve(dc2.id);
    const [registration] = registered;
    expect(registration?.type).toBe("pulumi:providers:pulumi-nodejs");
    expect(registration?.inputs).toEqual({
      "proxmox:endpoint": "https://pve.dc2:8006",
      "proxmox:username": "ops@pve",
      "proxmox:password": { [SECRET_SIG]: SECRET_VALUE, value: "pw" },
      "proxmox:insecure": "true",
      "proxmox:maxConnections": "4",
    });
  });

  it("marks the token secret in its inputs", async () => {
    const dc1 = new Provider("dc1", { endpoint: "https://pve.dc1:8006", apiToken: "a@pam!t=s" });
    await resolve(dc1.id);
    expect(registered[0]?.inputs).toEqual({
      "proxmox:endpoint": "https://pve.dc1:8006",
      "proxmox:apiToken": { [SECRET_SIG]: SECRET_VALUE, value: "a@pam!t=s" },
    });
  });

  it("is the provider of a ProxmoxVm, a CloudImageTemplate and every VmFleet member given it", async () => {
    const dc2 = new Provider("dc2", { endpoint: "https://pve.dc2:8006", apiToken: "a@pam!t=s" });
    const vm = new ProxmoxVm("web", { node: "pve1", template: 9000 }, { provider: dc2 });
    const template = new CloudImageTemplate(
      "debian",
      { node: "pve1", url: "https://images.example/debian.qcow2" },
      { provider: dc2 },
    );
    const fleet = new VmFleet(
      "app",
      { count: 2, template: 9000, nodes: ["pve1"] },
      { provider: dc2 },
    );
    await Promise.all([vm.id, template.id, ...fleet.vms.map((m) => m.id)].map(resolve));
    const ref = await reference(dc2);
    const users = registered
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))
      .map((r) => [r.name, r.provider])
      .sort();
    expect(users).toEqual([
      ["app-0", ref],
      ["app-1", ref],
      ["debian", ref],
      ["web", ref],
    ]);
  });
});
