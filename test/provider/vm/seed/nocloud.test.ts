import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateCloudInit, type CloudInit } from "../../../../provider/vm/seed/seed-inputs.js";
import { renderSeedDocuments } from "../../../../provider/vm/seed/nocloud.js";
import { netConvert, run } from "./iso-readers.js";
import { pyYamlLoad } from "./pyyaml.js";

const KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops@example";
const IDENTITY = { instanceId: "pp-vm1", hostname: "fallback" };

function parse(input: unknown): CloudInit {
  const result = validateCloudInit(input);
  if (!result.ok) throw new Error(JSON.stringify(result.failures));
  return result.value;
}

const TYPICAL = parse({
  hostname: "web-1",
  users: [
    {
      name: "ops",
      sshAuthorizedKeys: [KEY],
      sudo: true,
      groups: ["adm"],
      shell: "/bin/bash",
      lockPassword: true,
    },
  ],
  packages: ["nginx"],
  runcmd: ["echo hi", ["touch", "/tmp/x"]],
  writeFiles: [{ path: "/etc/motd", content: "hello\n", permissions: "0644", owner: "root:root" }],
  network: [
    {
      mac: "52:54:00:AB:CD:EF",
      addresses: ["192.0.2.10/24", "2001:db8::10/64"],
      gateway4: "192.0.2.1",
      nameservers: { addresses: ["192.0.2.53"], search: ["example.com"] },
    },
  ],
});

/** Runs a cloud-init command on files written to a scratch directory. */
function withFiles<T>(files: Record<string, string>, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "seed-ci-"));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("nocloud", () => {
  const docs = renderSeedDocuments(TYPICAL, IDENTITY);

  it("writes meta-data with a content-hashed instance-id and the hostname", () => {
    expect(docs["meta-data"]).toMatch(
      /^instance-id: pp-vm1-[0-9a-f]{12}\nlocal-hostname: web-1\n$/,
    );
  });

  it("renders user-data that cloud-init's schema accepts", () => {
    expect(docs["user-data"]).toBe(
      [
        "#cloud-config",
        "users:",
        "  - default",
        "  - name: ops",
        "    ssh_authorized_keys:",
        `      - "${KEY}"`,
        '    sudo: "ALL=(ALL) NOPASSWD:ALL"',
        "    groups:",
        "      - adm",
        "    shell: /bin/bash",
        "    lock_passwd: true",
        "packages:",
        "  - nginx",
        "  - qemu-guest-agent",
        "runcmd:",
        '  - "echo hi"',
        "  - - touch",
        "    - /tmp/x",
        "  - - systemctl",
        "    - enable",
        '    - "--now"',
        "    - qemu-guest-agent",
        "write_files:",
        "  - path: /etc/motd",
        "    content: |",
        "      hello",
        '    permissions: "0644"',
        '    owner: "root:root"',
        "",
      ].join("\n"),
    );
    withFiles({ "user-data": docs["user-data"] }, (dir) => {
      expect(run("cloud-init", ["schema", "-c", join(dir, "user-data")]).trim()).toBe(
        `Valid cloud-config: ${join(dir, "user-data")}`,
      );
    });
  });

  it("renders vendor-data that installs and enables the guest agent", () => {
    expect(docs["vendor-data"]).toBe(
      '#cloud-config\npackages:\n  - qemu-guest-agent\nruncmd:\n  - - systemctl\n    - enable\n    - "--now"\n    - qemu-guest-agent\n',
    );
    expect(pyYamlLoad([docs["vendor-data"]])[0]).toEqual({
      ok: true,
      value: {
        packages: ["qemu-guest-agent"],
        runcmd: [["systemctl", "enable", "--now", "qemu-guest-agent"]],
      },
    });
  });

  it("renders network-config v2 matched by MAC, which cloud-init converts for netplan and ifupdown", () => {
    const network = docs["network-config"] ?? "";
    expect(pyYamlLoad([network])[0]).toEqual({
      ok: true,
      value: {
        version: 2,
        ethernets: {
          nic0: {
            match: { macaddress: "52:54:00:ab:cd:ef" },
            "set-name": "eth0",
            addresses: ["192.0.2.10/24", "2001:db8::10/64"],
            gateway4: "192.0.2.1",
            nameservers: { addresses: ["192.0.2.53"], search: ["example.com"] },
          },
        },
      },
    });
    expect(netConvert(network, "ubuntu", "netplan")).toContain("macaddress: 52:54:00:ab:cd:ef");
    const eni = netConvert(network, "debian", "eni");
    expect(eni).toContain("address 192.0.2.10/24");
    expect(eni).toContain("gateway 192.0.2.1");
  });

  it("leaves network-config out when no network is given, so cloud-init's fallback applies", () => {
    expect(renderSeedDocuments(parse({}), IDENTITY)["network-config"]).toBe(undefined);
  });

  it("passes user-data text through unchanged", () => {
    const text = "#cloud-config\nruncmd:\n  - echo mine\n";
    expect(renderSeedDocuments(parse({ userData: text }), IDENTITY)["user-data"]).toBe(text);
  });

  it("changes the instance-id when user-data, network-config or the hostname changes, and only then", () => {
    const id = (input: unknown): string =>
      renderSeedDocuments(parse(input), IDENTITY)["meta-data"].split("\n")[0] ?? "";
    const base = id({ packages: ["a"] });
    expect(id({ packages: ["a"] })).toBe(base);
    expect(id({ packages: ["b"] })).not.toBe(base);
    expect(id({ packages: ["a"], hostname: "other" })).not.toBe(base);
    expect(id({ packages: ["a"], network: [{ dhcp4: true }] })).not.toBe(base);
  });

  it("matches a no-MAC NIC to any e* interface", () => {
    expect(
      renderSeedDocuments(parse({ network: [{ dhcp4: true }] }), IDENTITY)["network-config"],
    ).toBe('version: 2\nethernets:\n  nic0:\n    match:\n      name: "e*"\n    dhcp4: true\n');
  });
});
