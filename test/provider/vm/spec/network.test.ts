import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { validateCloudInit } from "../../../../provider/vm/seed/seed-inputs";
import { renderSeedDocuments } from "../../../../provider/vm/seed/nocloud";
import {
  networkSchema,
  networksSchema,
  nicsOf,
  seedNicsOf,
} from "../../../../provider/vm/spec/network";
import { netConvert } from "../seed/iso-readers";

const MACS = ["BC:24:11:00:00:01", "BC:24:11:00:00:02"];

describe("nicsOf", () => {
  const network = networkSchema.parse({ bridge: "vmbr1", nameservers: ["10.0.0.53"] });

  it("takes the NICs from networks and the DNS from the VM level when networks is set", () => {
    const networks = networksSchema.parse([{}, { bridge: "vmbr2" }]);
    const vm = nicsOf({ network, networks, searchDomains: ["example.com"] });
    expect(vm.nics.map((nic) => nic.bridge)).toEqual(["vmbr0", "vmbr2"]);
    expect(vm.nameservers).toEqual(["10.0.0.53"]);
    expect(vm.searchDomains).toEqual(["example.com"]);
  });

  it("makes the network shorthand the one NIC, with its own DNS", () => {
    expect(nicsOf({ network })).toEqual({
      nics: [network],
      nameservers: ["10.0.0.53"],
      searchDomains: undefined,
    });
  });
});

describe("seedNicsOf", () => {
  const vm = nicsOf({
    network: networkSchema.parse({}),
    networks: networksSchema.parse([
      {},
      { bridge: "vmbr1", ipv4: { address: "192.0.2.10/24", gateway: "192.0.2.1" }, ipv6: "auto" },
    ]),
    nameservers: ["192.0.2.53"],
    searchDomains: ["example.com"],
  });

  it("names every NIC by its MAC and puts the VM's DNS on the first", () => {
    expect(seedNicsOf(vm, MACS)).toEqual([
      {
        mac: "bc:24:11:00:00:01",
        dhcp4: true,
        nameservers: { addresses: ["192.0.2.53"], search: ["example.com"] },
      },
      { mac: "bc:24:11:00:00:02", addresses: ["192.0.2.10/24"], gateway4: "192.0.2.1" },
    ]);
  });

  it("renders network-config that cloud-init converts to netplan with one entry per MAC", () => {
    const parsed = validateCloudInit({ network: seedNicsOf(vm, MACS) });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.failures));
    const doc =
      renderSeedDocuments(parsed.value, { instanceId: "pp-x", hostname: "x" })["network-config"] ??
      "";
    const netplan = netConvert(doc, "ubuntu", "netplan");
    expect(parse(netplan)).toMatchObject({
      network: {
        ethernets: {
          nic0: {
            match: { macaddress: "bc:24:11:00:00:01" },
            "set-name": "eth0",
            dhcp4: true,
            nameservers: { addresses: ["192.0.2.53"], search: ["example.com"] },
          },
          nic1: {
            match: { macaddress: "bc:24:11:00:00:02" },
            "set-name": "eth1",
            addresses: ["192.0.2.10/24"],
          },
        },
      },
    });
  });
});

describe("networksSchema", () => {
  it("stores a pinned MAC the way PVE writes it, upper-case", () => {
    expect(networksSchema.parse([{ mac: "bc:24:11:0a:0b:0c" }])[0]?.mac).toBe("BC:24:11:0A:0B:0C");
  });

  it.each([
    [[{ mtu: 1 }], true],
    [[{ mtu: 65521 }], false],
    [[{ queues: 64 }], true],
    [[{ queues: 65 }], false],
    [[{ rate: 0 }], false],
    [[], false],
    [Array.from({ length: 33 }, () => ({})), false],
  ])("accepts %j: %s, as PVE 8.4's net format does", (value, ok) => {
    expect(networksSchema.safeParse(value).success).toBe(ok);
  });
});
