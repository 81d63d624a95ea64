import { describe, expect, it } from "vitest";
import { data } from "../support/client.js";
import { useSimulator } from "../support/use-simulator.js";

const { api } = useSimulator({ clonedVm: true });

const put = (params: Record<string, string | number>) => api.putConfig("pve1", 100, params);

/** The per-parameter errors of a refused update, after checking it is PVE's 400. */
async function refused(params: Record<string, string | number>): Promise<unknown> {
  const res = await put(params);
  expect([res.status, res.statusText]).toEqual([400, "Parameter verification failed."]);
  return res.body?.["errors"];
}

const config = () => api.vmConfig("pve1", 100);

describe("routes/config-formats", () => {
  it("accepts every documented option of a drive, a NIC, EFI and TPM disks", async () => {
    const res = await put({
      scsi1: "local-lvm:8,iothread=1,discard=on,ssd=1,cache=writeback,backup=0,replicate=0",
      virtio2: "local-lvm:4,format=raw,iothread=1",
      sata3: "local-lvm:1,ssd=1",
      net1: "virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=10,firewall=1,mtu=1450,rate=12.5,queues=4",
      efidisk0: "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
      tpmstate0: "local-lvm:1,version=v2.0",
      cpu: "x86-64-v2-AES,flags=+aes;-pcid",
      machine: "pc-q35-8.1+pve0,viommu=intel",
      agent: "enabled=1,fstrim_cloned_disks=1,type=virtio",
      boot: "order=scsi0;net0",
      startup: "order=2,up=30,down=60",
      hotplug: "network,disk,cpu,memory",
      vga: "virtio,memory=64",
      memory: "4096",
      balloon: 1024,
      shares: 2000,
    });
    expect(res.status).toBe(200);
    expect(await config()).toMatchObject({ cpu: "x86-64-v2-AES,flags=+aes;-pcid", balloon: 1024 });
  });

  it("names each bad sub-key of a property string under PVE's 'format error'", async () => {
    expect(await refused({ net1: "virtio,bridge=vmbr0,tag=5000,mtu=0" })).toEqual({
      net1: [
        "invalid format - format error",
        "net1.mtu: value must have a minimum value of 1",
        "net1.tag: value must have a maximum value of 4094",
      ].join("\n"),
    });
    expect(await refused({ scsi1: "local-lvm:8,discard=yes,cache=fast" })).toEqual({
      scsi1: [
        "invalid format - format error",
        "scsi1.cache: value 'fast' does not have a value in the enumeration 'none, writethrough, writeback, unsafe, directsync'",
        "scsi1.discard: value 'yes' does not have a value in the enumeration 'ignore, on'",
      ].join("\n"),
    });
    expect(await refused({ tpmstate0: "local-lvm:1,version=v3" })).toEqual({
      tpmstate0:
        "invalid format - format error\ntpmstate0.version: value 'v3' does not have a value in the enumeration 'v1.2, v2.0'",
    });
  });

  it("refuses keys a bus does not have and indexes beyond its limit", async () => {
    expect(await refused({ virtio1: "local-lvm:4,ssd=1" })).toEqual({
      virtio1: "invalid format - invalid key in comma-separated list property: ssd",
    });
    expect(await refused({ sata1: "local-lvm:4,iothread=1" })).toEqual({
      sata1: "invalid format - invalid key in comma-separated list property: iothread",
    });
    const beyond =
      "property is not defined in schema and the schema does not allow additional properties";
    expect(
      await refused({
        scsi31: "local-lvm:4",
        virtio16: "local-lvm:4",
        sata6: "local-lvm:4",
        ide4: "local-lvm:4",
      }),
    ).toEqual({
      scsi31: beyond,
      virtio16: beyond,
      sata6: beyond,
      ide4: beyond,
    });
  });

  it("checks the volume, MAC and boolean texts of nested values", async () => {
    expect(await refused({ scsi1: "nostorage", net1: "virtio=01:00:00:00:00:01" })).toEqual({
      scsi1:
        "invalid format - format error\nscsi1.file: invalid format - unable to parse volume ID 'nostorage'",
      net1: "invalid format - format error\nnet1.macaddr: invalid format - value does not look like a valid unicast MAC address",
    });
    expect(await refused({ agent: "enabled=maybe" })).toEqual({
      agent:
        "invalid format - format error\nagent.enabled: type check ('boolean') failed - got 'maybe'",
    });
  });

  it("validates the CPU model and the flags a VM may set, as validate_vm_cpu_conf does", async () => {
    expect(await refused({ cpu: "Skylake" })).toEqual({
      cpu: "invalid format - Built-in cputype 'Skylake' is not defined (missing 'custom-' prefix?)",
    });
    expect(await refused({ cpu: "host,flags=+avx512f" })).toEqual({
      cpu: "invalid format - VM-specific CPU flags must be a subset of: pcid, spec-ctrl, ibpb, ssbd, virt-ssbd, amd-ssbd, amd-no-ssb, pdpe1gb, md-clear, hv-tlbflush, hv-evmcs, aes",
    });
    expect(await refused({ cpu: "custom-fast" })).toEqual({
      cpu: "invalid format - Custom cputype 'fast' not found",
    });
  });

  it("checks machine types, startup order, hotplug features and memory", async () => {
    expect(await refused({ machine: "q36" })).toEqual({
      machine:
        "invalid format - format error\nmachine.type: value does not match the regex pattern",
    });
    expect(await refused({ startup: "order=first" })).toEqual({
      startup: "invalid format - unable to parse startup options",
    });
    expect(await refused({ hotplug: "disk,gpu" })).toEqual({
      hotplug: "invalid format - invalid hotplug feature 'gpu'",
    });
    expect(await refused({ memory: "8" })).toEqual({
      memory:
        "invalid format - format error\nmemory.current: value must have a minimum value of 16",
    });
    expect(await refused({ shares: 60000, hugepages: "4" })).toEqual({
      shares: "value must have a maximum value of 50000",
      hugepages: "value '4' does not have a value in the enumeration 'any, 2, 1024'",
    });
  });

  it("refuses before changing anything: a bad key leaves the VM and the storage as they were", async () => {
    const before = await config();
    await refused({ scsi1: "local-lvm:8", net1: "virtio,tag=0" });
    expect(await config()).toEqual(before);
    expect(data(await api.get("/nodes/pve1/storage/local-lvm/content"))).toEqual([]);
  });
});
