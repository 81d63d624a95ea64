import { describe, expect, it } from "vitest";
import { parseYaml } from "../../../simulator/guest/yaml.js";

describe("yaml", () => {
  it("parses a netplan v2 document with match, lists and booleans", () => {
    const text = [
      "# generated",
      "version: 2",
      "ethernets:",
      "  eth0:",
      "    match:",
      '      macaddress: "bc:24:11:00:00:01"',
      "    dhcp4: true",
      "  eth1:",
      "    addresses:",
      "      - 192.168.1.10/24",
      "    gateway4: 192.168.1.1",
      "    nameservers:",
      "      addresses: [1.1.1.1, 8.8.8.8]",
    ].join("\n");
    expect(parseYaml(text)).toEqual({
      version: 2,
      ethernets: {
        eth0: { match: { macaddress: "bc:24:11:00:00:01" }, dhcp4: true },
        eth1: {
          addresses: ["192.168.1.10/24"],
          gateway4: "192.168.1.1",
          nameservers: { addresses: ["1.1.1.1", "8.8.8.8"] },
        },
      },
    });
  });

  it("parses lists of maps and quoted scalars", () => {
    expect(parseYaml("items:\n- name: 'a'\n  size: 2\n- name: b # comment\n")).toEqual({
      items: [{ name: "a", size: 2 }, { name: "b" }],
    });
  });

  it("parses meta-data keys with dashes", () => {
    expect(parseYaml("instance-id: iid-1\nlocal-hostname: web1\n")).toEqual({
      "instance-id": "iid-1",
      "local-hostname": "web1",
    });
  });

  it("rejects constructs outside the subset", () => {
    expect(() => parseYaml("a: &anchor 1\n")).toThrow("unsupported YAML construct '&anchor 1'");
    expect(() => parseYaml("a:\n\tb: 1\n")).toThrow("line 2: tabs are not allowed");
  });
});
