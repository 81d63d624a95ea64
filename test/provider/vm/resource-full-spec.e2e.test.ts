import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TEMPLATES } from "../../../simulator/model/defaults";
import { runBin } from "../../cli/support";
import { pulumi } from "../../e2e/support/engine";
import { leftoverProcesses } from "../../e2e/support/processes";
import { guestVms, seedIsos } from "../../e2e/support/proxmox-stack";
import { TestClient, data } from "../../simulator/support/client";
import { LOCAL_TEMPLATE } from "../../support/local-template";
import { expectExitCode, expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

interface Settings {
  readonly dataGiB: number;
  readonly nics: 2 | 3;
  readonly vcpus: number;
  readonly memoryMiB: number;
  readonly rebootPolicy: "allow" | "never";
  readonly dbPool: string | undefined;
  readonly webPool: string;
  readonly webFull: boolean;
}

const NICS = [
  { bridge: "vmbr0" },
  { bridge: "vmbr1", vlan: 20, firewall: true },
  { bridge: "vmbr1" },
];

/**
 * The program infra teams run: a database VM with two disks and two NICs, UEFI with a TPM on
 * q35, full-cloned from a template on another node's local storage, in a pool, started at boot
 * first; and a web VM linked to a template on shared storage.
 */
const program = (s: Settings) => `
const { ProxmoxVm } = require("pulumi-proxmox");
const db = new ProxmoxVm("db", {
  node: "pve2", template: ${LOCAL_TEMPLATE.vmid}, waitForIp: false,
  disks: [
    { interface: "scsi0", sizeGiB: 4, discard: true },
    { interface: "scsi1", storage: "local-lvm", sizeGiB: ${s.dataGiB}, backup: false },
  ],
  networks: ${JSON.stringify(NICS.slice(0, s.nics))},
  bios: "ovmf", efiDisk: { storage: "local-lvm" }, tpm: { storage: "local-lvm" }, machine: "q35",
  cpu: { type: "host", sockets: 1, cores: 4, vcpus: ${s.vcpus} },
  memory: { sizeMiB: ${s.memoryMiB} },
  hotplug: ["network", "disk", "cpu"],
  onBoot: true, startup: { order: 1, up: 10 },
  ${s.dbPool === undefined ? "" : `pool: ${JSON.stringify(s.dbPool)},`}
  rebootPolicy: ${JSON.stringify(s.rebootPolicy)},
});
const web = new ProxmoxVm("web", {
  node: "pve2", template: 9000, waitForIp: false,
  clone: { full: ${s.webFull} }, pool: ${JSON.stringify(s.webPool)},
});
exports.db = db.vmid;
exports.dbPending = db.pendingChanges;
exports.web = web.vmid;
`;

const FIRST: Settings = {
  dataGiB: 4,
  nics: 2,
  vcpus: 2,
  memoryMiB: 1024,
  rebootPolicy: "never",
  dbPool: "infra",
  webPool: "infra",
  webFull: false,
};
/** One change of each in-place kind: grow, NIC, hot-plugged vCPU, a pending memory size, a pool move. */
const CHANGED: Settings = {
  ...FIRST,
  dataGiB: 8,
  nics: 3,
  vcpus: 3,
  memoryMiB: 2048,
  webPool: "apps",
};

describe("an infra team's full program through the real engine", () => {
  const { sim, engine, dir } = useStack(
    { name: "full-spec", program: program(FIRST) },
    {
      simulator: {
        guestBootMs: 20,
        templates: [...DEFAULT_TEMPLATES, LOCAL_TEMPLATE],
        bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" },
      },
    },
  );
  let admin: TestClient;
  const write = (s: Settings) => fs.writeFileSync(path.join(dir, "index.js"), program(s));
  const outputs = async () =>
    JSON.parse((await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout) as {
      db: number;
      dbPending: string[];
      web: number;
    };
  const up = async () => {
    const result = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(result);
    return result.stdout + result.stderr;
  };
  const driftCheck = () =>
    pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"], dir, engine.env);
  const config = (vmid: number) => sim.model.vms.get(vmid)?.config ?? {};
  const members = async (poolid: string) => {
    const pool = data(await admin.get(`/pools/${poolid}`)) as { members: { vmid: number }[] };
    return pool.members.map((member) => member.vmid).sort();
  };
  const guestVolumes = () =>
    sim.model.storages
      .flatMap((s) => ["pve1", "pve2"].flatMap((node) => sim.model.volumes(node, s.storage)))
      .filter((v) => !sim.model.vms.get(v.vmid ?? 0)?.config["template"] && v.content === "images");
  const seen: number[] = [];

  beforeAll(async () => {
    admin = new TestClient(sim);
    for (const poolid of ["infra", "apps"]) await admin.call("POST", "/pools", { poolid });
  });
  afterAll(() => admin.close());

  it("creates both VMs as declared: placement, disks, NICs, firmware, lifecycle and pool", async () => {
    await up();
    const { db, web, dbPending } = await outputs();
    seen.push(db, web);
    expect(sim.model.vms.get(db)?.node).toBe("pve2");
    expect(config(db)).toMatchObject({
      bios: "ovmf",
      machine: "q35",
      scsi0: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,.*size=4G/),
      scsi1: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,.*size=4G/),
      efidisk0: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,efitype=4m/),
      tpmstate0: expect.stringMatching(/^local-lvm:vm-\d+-disk-\d+,(size=[^,]+,)?version=v2\.0/),
      net1: expect.stringMatching(/,bridge=vmbr1,firewall=1,tag=20$/),
      cpu: "host",
      onboot: 1,
      startup: "order=1,up=10",
    });
    expect([config(db)["vcpus"], config(db)["memory"]].map(String)).toEqual(["2", "1024"]);
    expect(config(db)["net2"]).toBeUndefined();
    expect(dbPending).toEqual([]);
    expect(sim.model.vms.get(web)?.node).toBe("pve2");
    expect(config(web)["scsi0"]).toMatch(/^shared:base-9000-disk-0\//);
    expect(await members("infra")).toEqual([db, web].sort());
  });

  it("settles: three refreshing previews in a row find zero changes", async () => {
    for (let i = 0; i < 3; i++) {
      const drift = await driftCheck();
      expectSuccess(drift);
    }
  });

  it("applies one change of each in-place kind in one up, keeping a memory change pending under rebootPolicy never", async () => {
    const before = await outputs();
    write(CHANGED);
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expectSuccess(preview);
    for (const changed of [/~ memory\s*:/, /~ cpu\s*:/, /~ disks\s*:/, /~ networks\s*:/])
      expect(preview.stdout).toMatch(changed);
    expect(preview.stdout).toMatch(/~ pool\s*: "infra" => "apps"/);
    expect(preview.stdout).not.toMatch(/replace/);

    const output = await up();
    // The new NIC changes the seed too (its network-config names every NIC): the guest reads it at boot.
    expect(output).toContain(
      `VM ${before.db} on pve2: memory, ide2 (the cloud-init seed) wait for the next reboot (rebootPolicy is "never")`,
    );
    const after = await outputs();
    expect([after.db, after.web]).toEqual([before.db, before.web]);
    expect(after.dbPending).toEqual(["memory"]);
    const vm = sim.model.vms.get(before.db);
    expect(vm?.status).toBe("running");
    expect(config(before.db)).toMatchObject({
      scsi1: expect.stringMatching(/size=8G/),
      net2: expect.stringMatching(/,bridge=vmbr1$/),
    });
    expect([config(before.db)["vcpus"], config(before.db)["memory"]].map(String)).toEqual([
      "3",
      "1024",
    ]);
    expect(Object.keys(vm?.pending ?? {})).toEqual(["memory"]);
    expect([await members("infra"), await members("apps")]).toEqual([[before.db], [before.web]]);

    // The drift check names what waits: the VM does not run with it yet.
    const drift = await runBin(["drift", "--stack", "dev"], dir, engine.env);
    expectExitCode(drift, 2);
    expect(drift.stdout).toMatch(/~ db \(.*\): update/);
    expect(drift.stdout).toMatch(/memory/);
    expect(drift.stdout).not.toMatch(/~ web /);
  });

  it("in one up: reboots to apply the pending change, leaves the pool the program drops, and replaces the linked VM with a full clone", async () => {
    const before = await outputs();
    write({ ...CHANGED, rebootPolicy: "allow", dbPool: undefined, webFull: true });
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expect(preview.stdout).toMatch(/\+-\s*pulumi-nodejs:dynamic\/proxmox:ProxmoxVm: \(replace\)/);
    expect(preview.stdout).toMatch(/- pool\s*: "infra"/);

    const output = await up();
    expect(output).toContain(`VM ${before.db} on pve2: rebooting to apply memory`);
    expect(output).toContain(`VM ${before.db} on pve2: leaving pool infra`);
    const after = await outputs();
    seen.push(after.web);
    expect(after.dbPending).toEqual([]);
    expect(String(config(before.db)["memory"])).toBe("2048");
    expect(sim.model.vms.get(before.db)?.pending).toEqual({});
    expect(await members("infra")).toEqual([]);
    expect(after.db).toBe(before.db);
    expect(after.web).not.toBe(before.web);
    expect(sim.model.vms.has(before.web)).toBe(false);
    expect(config(after.web)["scsi0"]).toMatch(/^shared:vm-\d+-disk-0,/);
    expect(await members("apps")).toEqual([after.web]);

    const drift = await driftCheck();
    expectSuccess(drift);
  });

  it("destroys everything: no VM, disk, seed, lock, pool member or provider process left", async () => {
    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroyed);
    expect(guestVms(sim)).toEqual([]);
    expect(guestVolumes()).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
    expect(seen.filter((vmid) => sim.model.isFileLocked(vmid))).toEqual([]);
    expect([await members("infra"), await members("apps")]).toEqual([[], []]);
    expect(leftoverProcesses(engine.marker)).toEqual([]);
  });
});
