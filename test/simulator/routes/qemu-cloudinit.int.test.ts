import { createHash, randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { data, startWithClonedVm, type TestClient } from "../support/client.js";
import { buildIso } from "../support/iso-builder.js";
import { uploadFile } from "../support/upload.js";

let sim: Simulator;
let api: TestClient;

afterEach(async () => {
  await api.close();
  await sim.close();
});

async function start(options: SimulatorOptions = {}): Promise<void> {
  ({ sim, api } = await startWithClonedVm(options));
}

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);

/** An ed25519 public key line `ssh-keygen -l` reads. */
function publicKey(comment: string): string {
  const type = Buffer.from("ssh-ed25519");
  const length = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const blob = Buffer.concat([length(type.length), type, length(32), randomBytes(32)]);
  return `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
}

async function power(action: string): Promise<void> {
  const upid = data(await api.call("POST", `/nodes/pve1/qemu/100/status/${action}`));
  expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
}

/** The guest once it booted (polled for up to 5 s). */
async function bootedGuest() {
  for (let i = 0; i < 500; i += 1) {
    const guest = sim.model.vms.get(100)?.guest;
    if (guest?.interfaces !== undefined) return guest;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

const dump = async (type: string): Promise<string> =>
  String(data(await api.get(`/nodes/pve1/qemu/100/cloudinit/dump?type=${type}`)));

describe("routes/qemu-cloudinit", () => {
  it("allocates vm-<vmid>-cloudinit for <storage>:cloudinit and refuses a second drive", async () => {
    await start();
    expect((await put({ ide2: "file=local-lvm:cloudinit" })).status).toBe(200);
    expect((await api.vmConfig("pve1", 100))["ide2"]).toBe(
      "local-lvm:vm-100-cloudinit,media=cdrom",
    );
    const content = data(await api.get("/nodes/pve1/storage/local-lvm/content")) as {
      volid: string;
      size: number;
    }[];
    expect(content.find((row) => row.volid === "local-lvm:vm-100-cloudinit")?.size).toBe(
      4 * 1024 * 1024,
    );
    const second = await put({ ide0: "shared:cloudinit" });
    expect([second.status, second.statusText]).toEqual([
      500,
      "ide0 - cloud-init drive is already attached at 'ide2'",
    ]);
    // Deleting the drive frees its volume (vmconfig_register_unused_drive).
    await put({ delete: "ide2" });
    const after = data(await api.get("/nodes/pve1/storage/local-lvm/content")) as {
      volid: string;
    }[];
    expect(after.map((row) => row.volid)).not.toContain("local-lvm:vm-100-cloudinit");
    // A file storage gets a qcow2 volume; qemu-server checks no content type for it.
    await put({ ide2: "local:cloudinit" });
    expect((await api.vmConfig("pve1", 100))["ide2"]).toBe(
      "local:vm-100-cloudinit.qcow2,media=cdrom",
    );
  });

  it("gives a clone a cloud-init volume of its own", async () => {
    await start();
    await put({ ide2: "local-lvm:cloudinit" });
    const upid = data(await api.call("POST", "/nodes/pve1/qemu/100/clone", { newid: 101 }));
    expect((await api.waitTask("pve1", String(upid)))["exitstatus"]).toBe("OK");
    expect((await api.vmConfig("pve1", 101))["ide2"]).toBe(
      "local-lvm:vm-101-cloudinit,media=cdrom",
    );
    const content = data(await api.get("/nodes/pve1/storage/local-lvm/content")) as {
      volid: string;
    }[];
    expect(content.map((row) => row.volid)).toEqual(
      expect.arrayContaining(["local-lvm:vm-100-cloudinit", "local-lvm:vm-101-cloudinit"]),
    );
  });

  it("hashes cipassword, keeps sshkeys URL-encoded and refuses what PVE refuses", async () => {
    await start();
    const key = publicKey("test@sim");
    await put({ ciuser: "admin", cipassword: "secret", sshkeys: encodeURIComponent(key) });
    const stored = sim.model.vms.get(100)?.config;
    expect(String(stored?.["cipassword"])).toMatch(/^\$5\$[^$]{8}\$[./0-9A-Za-z]{43}$/);
    expect(stored?.["sshkeys"]).toBe(encodeURIComponent(key));
    expect((await api.vmConfig("pve1", 100))["cipassword"]).toBe("**********");
    const raw = await put({ sshkeys: key });
    expect(raw.status).toBe(400);
    expect(String((raw.body?.["errors"] as Record<string, string>)["sshkeys"])).toMatch(
      /^invalid format - invalid urlencoded string: /,
    );
    const bad = await put({ sshkeys: encodeURIComponent("ssh-ed25519 bm90IGEga2V5") });
    expect([bad.status, bad.statusText]).toEqual([500, "SSH public key validation error"]);
  });

  it("takes ciupgrade from 8.x on and refuses it on 7.4", async () => {
    await start({ pveVersion: "7.4" });
    const res = await put({ ciupgrade: 0 });
    expect([res.status, res.body?.["errors"]]).toEqual([
      400,
      {
        ciupgrade:
          "property is not defined in schema and the schema does not allow additional properties",
      },
    ]);
    await api.close();
    await sim.close();
    await start({ pveVersion: "8.4" });
    expect((await put({ ciupgrade: 0 })).status).toBe(200);
  });

  it("boots with the user, key and lease of ciuser, sshkeys and ipconfig0, as dump shows", async () => {
    await start();
    const key = publicKey("admin@laptop");
    await put({
      ide2: "local-lvm:cloudinit",
      ciuser: "admin",
      sshkeys: encodeURIComponent(`${key}\n`),
      ipconfig0: "ip=dhcp",
    });
    const user = await dump("user");
    expect(user).toBe(
      [
        "#cloud-config",
        "hostname: web",
        "manage_etc_hosts: true",
        "fqdn: web",
        "user: admin",
        "ssh_authorized_keys:",
        `  - ${key}`,
        "chpasswd:",
        "  expire: False",
        "users:",
        "  - default",
        "package_upgrade: true",
        "",
      ].join("\n"),
    );
    const mac = /^virtio=([^,]+)/.exec(String((await api.vmConfig("pve1", 100))["net0"]))?.[1];
    const network = await dump("network");
    expect(network).toBe(
      [
        "version: 1",
        "config:",
        "    - type: physical",
        "      name: eth0",
        `      mac_address: '${String(mac).toLowerCase()}'`,
        "      subnets:",
        "      - type: dhcp4",
        "    - type: nameserver",
        "      address:",
        "      - '192.0.2.1'",
        "      search:",
        "      - 'sim'",
        "",
      ].join("\n"),
    );
    const id = createHash("sha1")
      .update(user + network)
      .digest("hex");
    expect(await dump("meta")).toBe(`instance-id: ${id}\n`);
    await power("start");
    const guest = await bootedGuest();
    expect(guest?.hostname).toBe("web");
    expect(guest?.user).toEqual({ name: "admin", sshKeys: [key] });
    const eth0 = guest?.interfaces?.find((nic) => nic.name === "eth0");
    expect(eth0?.["ip-addresses"].map((a) => a["ip-address"])).toContainEqual(
      expect.stringMatching(/^10\.10\.0\.\d+$/),
    );
  });

  it("shows changes made since the drive was generated until a start or PUT regenerates it", async () => {
    await start();
    await put({ ide2: "local-lvm:cloudinit", ciuser: "admin" });
    await power("start");
    await bootedGuest();
    await put({ ciuser: "ops", ipconfig0: "ip=10.10.0.50/24,gw=10.10.0.1" });
    const rows = async () => data(await api.get("/nodes/pve1/qemu/100/cloudinit"));
    expect(await rows()).toEqual([
      { key: "ciuser", value: "admin", pending: "ops" },
      { key: "ipconfig0", pending: "ip=10.10.0.50/24,gw=10.10.0.1" },
    ]);
    expect((await api.call("PUT", "/nodes/pve1/qemu/100/cloudinit")).status).toBe(200);
    expect(await rows()).toEqual([
      { key: "ciuser", value: "ops" },
      { key: "ipconfig0", value: "ip=10.10.0.50/24,gw=10.10.0.1" },
    ]);
  });

  it("beside our NoCloud seed in ide2, boots from the later CD-ROM: the seed before ide3", async () => {
    await start();
    const meta = "instance-id: vm-100\nlocal-hostname: from-seed\n";
    const up = await uploadFile(sim, "pve1", "local", "seed.iso", buildIso({ "meta-data": meta }));
    await api.waitTask("pve1", String(up.body?.["data"]));
    await put({ ide2: "local:iso/seed.iso,media=cdrom", ide0: "local-lvm:cloudinit" });
    await power("start");
    expect((await bootedGuest())?.hostname).toBe("from-seed");
    await power("stop");
    await put({ delete: "ide0" });
    await put({ ide3: "local-lvm:cloudinit" });
    await power("start");
    expect((await bootedGuest())?.hostname).toBe("web");
  });
});
