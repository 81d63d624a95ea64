import { describe, expect, it } from "vitest";
import { checkVm } from "../../../../provider/vm/operations/check";
import {
  formatCpu,
  formatMemory,
  parseCpuModel,
  readCpu,
  readMemory,
  sameCpuModel,
} from "../../../../provider/vm/spec/compute";

describe("formatCpu", () => {
  it("writes only the sub-fields the program sets, as PVE's keys", () => {
    expect(formatCpu({ cores: 4, numa: true, units: 200 })).toEqual({
      cores: 4,
      numa: 1,
      cpuunits: 200,
    });
  });

  it("writes the model and its flags as one value", () => {
    expect(formatCpu({ type: "host", flags: ["+aes", "-pcid"], limit: 1.5 })).toEqual({
      cpu: "host,flags=+aes;-pcid",
      cpulimit: 1.5,
    });
  });
});

describe("parseCpuModel and sameCpuModel", () => {
  it("reads PVE's cputype= form and flags in any order as the same model", () => {
    expect(parseCpuModel("cputype=host,flags=-pcid;+aes")).toEqual({
      type: "host",
      flags: ["-pcid", "+aes"],
    });
    expect(sameCpuModel("cputype=host,flags=-pcid;+aes", "host,flags=+aes;-pcid")).toBe(true);
    expect(sameCpuModel("host", "host,flags=+aes")).toBe(false);
    expect(sameCpuModel(undefined, "host")).toBe(false);
  });
});

describe("readCpu", () => {
  it("reads what the program sets, with PVE's defaults for absent keys", () => {
    const input = { type: "kvm64", sockets: 2, cores: 2, vcpus: 4, numa: false, limit: 0 };
    expect(readCpu({ sockets: 2, cores: 2 }, input)).toEqual(input);
  });

  it("reports a changed value in the input's terms and ignores what the program does not set", () => {
    const read = readCpu({ cpu: "host,flags=+aes", cores: 8, numa: 1, vcpus: 3 }, { cores: 4 });
    expect(read).toEqual({ cores: 8 });
  });
});

describe("formatMemory and readMemory", () => {
  it("keeps the shorthand a plain memory key", () => {
    expect(formatMemory(2048)).toEqual({ memory: 2048 });
    expect(readMemory({ memory: 4096 }, 2048)).toBe(4096);
  });

  it("round-trips the full form through PVE's keys", () => {
    const memory = { sizeMiB: 4096, balloonMiB: 1024, shares: 500, hugepages: 2 as const };
    const keys = formatMemory(memory);
    expect(keys).toEqual({ memory: 4096, balloon: 1024, shares: 500, hugepages: "2" });
    expect(readMemory(keys, memory)).toEqual(memory);
  });

  it("reads PVE's default shares when the key is absent", () => {
    expect(readMemory({ memory: 4096 }, { sizeMiB: 4096, shares: 1000 })).toEqual({
      sizeMiB: 4096,
      shares: 1000,
    });
  });
});

describe("cpu.affinity and cpu.units", () => {
  const check = (cpu: unknown) =>
    checkVm(
      {},
      { identity: { project: "p", stack: "s", name: "n" }, node: "pve1", template: 9000, cpu },
    ).failures.map((f) => [f.property, f.reason]);

  it("writes the host CPU set as PVE's affinity and reads it back as written", () => {
    expect(formatCpu({ affinity: "0-3,8" })).toEqual({ affinity: "0-3,8" });
    expect(readCpu({ affinity: "0-3,8" }, { affinity: "0-3,8" })).toEqual({ affinity: "0-3,8" });
  });

  it("refuses a CPU set PVE cannot parse and a range that goes down, naming the sub-input", () => {
    expect(check({ affinity: "0-3;8" })).toEqual([
      ["cpu.affinity", 'must be host CPU numbers and ranges, e.g. "0-3,8"'],
    ]);
    expect(check({ affinity: "5-2" })).toEqual([
      ["cpu.affinity", "each range must go up, e.g. 2-5"],
    ]);
  });

  it("refuses a weight above what cgroup v2 keeps, which would read back as drift", () => {
    expect(check({ units: 10_000 })).toEqual([]);
    expect(check({ units: 10_001 })).toEqual([
      ["cpu.units", "at most 10000: PVE clamps a larger weight to 10000 on cgroup v2"],
    ]);
  });
});
