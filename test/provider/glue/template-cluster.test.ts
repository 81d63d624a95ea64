import * as pulumi from "@pulumi/pulumi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VmFleet } from "../../../components";
import { CloudImageTemplate, Provider, ProxmoxVm } from "../../../provider";

let registered: string[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push(args.name);
        return { id: `${args.name}-id`, state: { ...args.inputs, vmid: 9100 } };
      },
      call: (args) => args.inputs,
    },
    "template-cluster-project",
    "dev",
    true,
  );
});
beforeEach(() => {
  registered = [];
});

const image = { node: "pve1", url: "https://images.example/debian.qcow2" };
const cluster = (name: string) =>
  new Provider(name, { endpoint: `https://pve.${name}:8006`, apiToken: "a@pam!t=s" });

describe("template-cluster", () => {
  it("refuses a VM cloning a template of another provider, naming both and what to do, before registering it", async () => {
    const dc2 = cluster("dc2");
    const debian = new CloudImageTemplate("debian-dc2", image, { provider: dc2 });
    expect(() => new ProxmoxVm("web-dc1", { node: "pve1", template: debian.vmid })).toThrow(
      'ProxmoxVm "web-dc1" clones CloudImageTemplate "debian-dc2", which is made through ' +
        'provider "dc2", but the VM is made through the default provider (the stack\'s ' +
        "`proxmox:*` config): a template exists only on its own provider's cluster. Either make " +
        'the VM through provider "dc2" too (its `provider` option), or make a CloudImageTemplate ' +
        "through the VM's provider and clone that one.",
    );
    await new Promise((done) => debian.id.apply(done));
    expect(registered).toEqual(["dc2", "debian-dc2"]);
  });

  it("refuses a VM of an explicit provider cloning a default provider's template, through an apply", () => {
    const debian = new CloudImageTemplate("debian", image);
    const vmid = debian.vmid.apply((id) => id);
    expect(
      () => new ProxmoxVm("web", { node: "pve1", template: vmid }, { provider: cluster("dc3") }),
    ).toThrow(
      /through the default provider .* but the VM is made through provider "dc3".*drop its `provider` option/,
    );
  });

  it("refuses each fleet member given another provider than its template's", () => {
    const debian = new CloudImageTemplate("debian-a", image, { provider: cluster("a") });
    expect(
      () =>
        new VmFleet(
          "app",
          { count: 1, template: debian.vmid, nodes: ["pve1"] },
          { provider: cluster("b") },
        ),
    ).toThrow('ProxmoxVm "app-0" clones CloudImageTemplate "debian-a"');
  });

  it("accepts a template of the VM's own provider, given directly or to a fleet", async () => {
    const dc2 = cluster("dc2");
    const debian = new CloudImageTemplate("debian-own", image, { provider: dc2 });
    const vm = new ProxmoxVm("web-own", { node: "pve1", template: debian.vmid }, { provider: dc2 });
    const fleet = new VmFleet(
      "fleet",
      { count: 1, template: debian.vmid, nodes: ["pve1"] },
      { provider: dc2 },
    );
    const plain = new CloudImageTemplate("debian-default", image);
    const other = new ProxmoxVm("web-default", { node: "pve1", template: plain.vmid });
    const ids = [vm, other, ...fleet.vms].map((r) => new Promise((done) => r.id.apply(done)));
    await Promise.all(ids);
    expect(registered).toEqual(expect.arrayContaining(["web-own", "fleet-0", "web-default"]));
  });
});
