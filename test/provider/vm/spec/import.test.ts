import { describe, expect, it } from "vitest";
import type { VmConfig } from "../../../../provider/pve/api/proxmox-api";
import { configChanges } from "../../../../provider/vm/spec/apply";
import type { Seen } from "../../../../provider/vm/spec/field";
import { FIELDS, FIELD_NAMES, type FieldName } from "../../../../provider/vm/spec/fields";
import { importedInputs } from "../../../../provider/vm/spec/import";

const seen: Seen = { macs: {}, config: { scsi0: "local-lvm:vm-100-disk-0,size=32G" } };

/** The config keys a field's example writes, as PVE would hold them after the write. */
function written(name: FieldName): VmConfig {
  const value = FIELDS[name].schema.parse(FIELDS[name].example.valid);
  const set = configChanges({}, { [name]: value }, seen);
  // A new disk `storage:size` is allocated: PVE holds a volume with its size.
  return Object.fromEntries(
    Object.entries(set).map(([key, v]) => {
      const allocated = /^([a-z][\w-]*):(\d+)(,.*)?$/.exec(String(v));
      return [
        key,
        allocated
          ? `${allocated[1]}:vm-100-disk-${key},size=${allocated[2]}G${allocated[3] ?? ""}`
          : v,
      ];
    }),
  );
}

const vmWith = (config: VmConfig) => ({ config, running: true });

describe("importedInputs", () => {
  const writable = FIELD_NAMES.filter((name) => {
    const spec = FIELDS[name];
    return ("config" in spec || "configKeys" in spec) && !("shorthandOf" in spec);
  });

  it.each(writable)(
    "reads %s back, as the spec writes it, to a value that writes nothing",
    (name) => {
      const config = { ...seen.config, ...written(name) };
      const { inputs, notes } = importedInputs(vmWith(config));
      expect(inputs[name], notes.join("\n")).toBeDefined();
      const parsed = FIELDS[name].schema.parse(inputs[name]);
      expect(configChanges(config, { [name]: parsed }, { macs: {}, config })).toEqual({});
    },
  );

  it("leaves PVE's defaults out: a config without cores declares no cores", () => {
    const { inputs } = importedInputs(vmWith({ memory: 2048 }));
    expect(inputs).toEqual({ memory: 2048, started: true });
  });

  it("declares cpu instead of its cores shorthand when the VM sets more than cores", () => {
    const { inputs } = importedInputs(vmWith({ cores: 2, sockets: 2, cpu: "host,flags=+aes" }));
    expect(inputs.cpu).toEqual({ type: "host", flags: ["+aes"], sockets: 2, cores: 2 });
    expect(inputs.cores).toBeUndefined();
    expect(importedInputs(vmWith({ cores: 2 })).inputs.cores).toBe(2);
  });

  it("names what no input says, by key and never by value", () => {
    const { notes } = importedInputs(
      vmWith({
        cores: 1,
        ide2: "local-lvm:vm-100-cloudinit,media=cdrom",
        cipassword: "**********",
        unused0: "local-lvm:vm-100-disk-9",
      }),
    );
    expect(notes).toEqual(["Kept as they are, as no input says them: cipassword, ide2, unused0."]);
  });

  it("leaves out a value the input refuses, says why, and names its keys once", () => {
    const { inputs, notes } = importedInputs(
      vmWith({ cores: 1, net0: "e1000e=AA:BB:CC:DD:EE:FF,bridge=vmbr0" }),
    );
    expect(inputs.networks).toBeUndefined();
    expect(notes).toEqual([
      'networks: left out, so the VM keeps [{"model":"e1000e","bridge":"vmbr0"}]: ' +
        'networks[0].model: Invalid option: expected one of "virtio"|"e1000"|"rtl8139"|"vmxnet3".',
    ]);
  });

  it("leaves out a value whose companion the VM lacks (OVMF without an EFI disk)", () => {
    const { inputs, notes } = importedInputs(vmWith({ bios: "ovmf" }));
    expect(inputs.bios).toBeUndefined();
    expect(notes.join("\n")).toMatch(
      /^bios: left out, so the VM keeps "ovmf": bios "ovmf" needs an EFI disk/,
    );
  });

  it("declares the description's own text and the power state, without the mark", () => {
    const { inputs } = importedInputs({
      config: { description: "web tier\n\npulumi-proxmox:{}" },
      running: false,
    });
    expect(inputs).toEqual({ description: "web tier", started: false });
  });
});
