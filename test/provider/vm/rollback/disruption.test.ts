import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import { disruptionsOf } from "../../../../provider/vm/rollback/disruption";
import {
  namingOf,
  withDefaults,
  type ResolvedInputs,
} from "../../../../provider/vm/steps/resolved-inputs";
import { buildVmSeed } from "../../../../provider/vm/steps/vm-seed";
import { nicsOf } from "../../../../provider/vm/spec/network";

const vm = { node: "pve1", vmid: 100 };
const mac = "BC:24:11:AA:BB:CC";

function desiredOf(inputs: Record<string, unknown> = {}): ResolvedInputs {
  const checked = checkVm(
    {},
    {
      identity: { project: "p", stack: "s", name: "web" },
      node: "pve1",
      template: 9000,
      ...inputs,
    },
  );
  expect(checked.failures).toEqual([]);
  return withDefaults(checked.inputs as ResolvedInputs);
}

/** The seed converge attaches for these inputs, on the NIC with `mac`. */
function seedOf(desired: ResolvedInputs): string {
  const seed = buildVmSeed({
    identity: namingOf(desired).identity,
    vmName: namingOf(desired).vmName,
    macs: [mac],
    nics: nicsOf(desired),
    cloudInit: desired.cloudInit,
  });
  return `local:iso/${seed.filename},media=cdrom`;
}

/** A running VM made for `before`, planned against `after`. */
function plan(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  vmConfig: Record<string, string | number> = {},
) {
  const old = desiredOf(before);
  const config = {
    cores: 2,
    memory: 2048,
    scsi0: "local-lvm:vm-100-disk-0,size=8G",
    net0: `virtio=${mac},bridge=vmbr0`,
    agent: "1",
    ide2: seedOf(old),
    ...vmConfig,
  };
  const desired = desiredOf(after);
  return disruptionsOf({
    vm,
    known: { config, current: config, pending: [] },
    desired,
    naming: namingOf(desired),
    adopted: false,
  });
}

describe("disruptionsOf", () => {
  it("finds nothing disruptive in tags, notes, a pool or start at boot", () => {
    expect(
      plan({}, { tags: ["web"], description: "front", pool: "web-tier", onBoot: true }),
    ).toEqual([]);
  });

  it("names a cores change that waits for a reboot", () => {
    expect(plan({ cores: 2 }, { cores: 4 })).toEqual(["cores waits for a reboot"]);
  });

  it("finds a vCPU change the VM hot-plugs not disruptive", () => {
    const before = { cpu: { cores: 4, vcpus: 2 } };
    const after = { cpu: { cores: 4, vcpus: 3 } };
    const config = { cores: 4, vcpus: 2, hotplug: "network,disk,cpu" };
    expect(plan(before, after, config)).toEqual([]);
  });

  it("names the same vCPU change when the VM cannot hot-plug CPUs", () => {
    const before = { cpu: { cores: 4, vcpus: 2 } };
    const after = { cpu: { cores: 4, vcpus: 3 } };
    expect(plan(before, after, { cores: 4, vcpus: 2 })).toEqual(["vcpus (cpu) waits for a reboot"]);
  });

  it("names a disk grow", () => {
    expect(plan({ diskSize: 8 }, { diskSize: 16 })).toEqual(["scsi0 grows from 8 to 16 GiB"]);
  });

  it("names a disk added and a NIC added, each by the input behind it", () => {
    const after = {
      disks: [
        { interface: "scsi0", sizeGiB: 8 },
        { interface: "scsi1", storage: "local-lvm", sizeGiB: 4 },
      ],
      networks: [{ bridge: "vmbr0" }, { bridge: "vmbr1" }],
    };
    expect(plan({}, after)).toEqual([
      "scsi1 (disks[1]) is plugged in or changed",
      "net1 (networks[1]) is plugged in or changed",
    ]);
  });

  it("names a changed cloud-init seed", () => {
    expect(plan({}, { cloudInit: { hostname: "web-2" } })).toEqual(["the cloud-init seed changes"]);
  });

  it("names a key an earlier update left pending", () => {
    const desired = desiredOf({ cores: 4 });
    const config = {
      cores: 4,
      scsi0: "local-lvm:vm-100-disk-0,size=8G",
      net0: `virtio=${mac},bridge=vmbr0`,
      agent: "1",
      ide2: seedOf(desired),
    };
    const found = disruptionsOf({
      vm,
      known: { config, current: { ...config, cores: 2 }, pending: ["cores"] },
      desired,
      naming: namingOf(desired),
      adopted: false,
    });
    expect(found).toEqual(["cores still waits for a reboot"]);
  });
});
