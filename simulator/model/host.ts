import type { NodeState } from "./cluster.js";

/**
 * What a simulated node reports about itself, the one source for both `/nodes` rows and
 * `/nodes/{node}/status`: the two must agree, as both come from the same /proc reads on PVE.
 * Kernel strings are those of a PVE 8.4 host; a version profile replaces them. The
 * `pveversion` text is derived from the version the routes present, by the status route.
 */
export const HOST_8_4 = {
  /** `uname` sysname, release and version, joined as Nodes.pm `status` does for `kversion`. */
  kernel: {
    sysname: "Linux",
    release: "6.8.12-9-pve",
    version: "#1 SMP PREEMPT_DYNAMIC PMX 6.8.12-9 (2025-03-16T19:18Z)",
    machine: "x86_64",
  },
  cpuModel: "Intel(R) Xeon(R) CPU E5-2650 v4 @ 2.20GHz",
  /** cgroup v2 (unified), what every PVE 7+ host reports on `/nodes` rows. */
  cgroupMode: 2,
} as const;

/** The corosync cluster the simulated nodes form: its name and config version. */
export const CLUSTER = { name: "sim", configVersion: 3 } as const;

const ROOTFS_BYTES = 100 * 1024 ** 3;
const ROOTFS_USED = 4 * 1024 ** 3;
const SWAP_BYTES = 8 * 1024 ** 3;
/** The host "booted" a day before the simulator started, so uptimes look like a real host's. */
const BOOTED_AT = Date.now() - 86_400_000;

/** The resource usage one node reports; fixed small figures, the same for every reader. */
export interface NodeUsage {
  readonly cpu: number;
  readonly maxcpu: number;
  readonly mem: number;
  readonly maxmem: number;
  readonly disk: number;
  readonly maxdisk: number;
  readonly uptime: number;
}

export function nodeUsage(node: NodeState, now = Date.now()): NodeUsage {
  return {
    cpu: 0.02,
    maxcpu: node.cpus,
    mem: Math.floor(node.memoryBytes / 8),
    maxmem: node.memoryBytes,
    disk: ROOTFS_USED,
    maxdisk: ROOTFS_BYTES,
    uptime: Math.floor((now - BOOTED_AT) / 1000),
  };
}

/** `/nodes/{node}/status` as pve-manager `PVE/API2/Nodes.pm` (`status`) builds it. */
export function nodeStatus(node: NodeState, now = Date.now()): Record<string, unknown> {
  const usage = nodeUsage(node, now);
  const { kernel } = HOST_8_4;
  return {
    uptime: usage.uptime,
    idle: 0,
    loadavg: ["0.12", "0.08", "0.05"],
    kversion: `${kernel.sysname} ${kernel.release} ${kernel.version}`,
    "current-kernel": { ...kernel },
    "boot-info": { mode: "efi", secureboot: 0 },
    cpuinfo: {
      model: HOST_8_4.cpuModel,
      cpus: node.cpus,
      sockets: 1,
      cores: node.cpus,
      hvm: "1",
      mhz: "2200.000",
      user_hz: 100,
      flags: "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr vmx",
    },
    cpu: usage.cpu,
    wait: 0,
    memory: { total: usage.maxmem, used: usage.mem, free: usage.maxmem - usage.mem },
    ksm: { shared: 0 },
    swap: { total: SWAP_BYTES, used: 0, free: SWAP_BYTES },
    rootfs: {
      total: usage.maxdisk,
      used: usage.disk,
      avail: usage.maxdisk - usage.disk,
      free: usage.maxdisk - usage.disk,
    },
  };
}
