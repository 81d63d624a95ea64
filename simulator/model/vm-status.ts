import { agentEnabled, cpuCount, maxDisk, memoryBytes } from "./vm-config.js";
import type { HaResource } from "./ha.js";
import type { VmRecord } from "./types.js";
import type { VersionProfile } from "./versions.js";

/** PVE::QemuServer::vmstatus for one VM: the row of `/nodes/{node}/qemu` (live, no lag). */
export function vmListRow(
  vm: VmRecord,
  now: number,
  profile: VersionProfile,
): Record<string, unknown> {
  const running = vm.status === "running";
  const maxmem = memoryBytes(vm.config);
  const name = vm.config["name"];
  const row: Record<string, unknown> = {
    vmid: vm.vmid,
    status: vm.status,
    name: typeof name === "string" ? name : `VM ${vm.vmid}`,
    cpus: cpuCount(vm.config),
    maxmem,
    maxdisk: maxDisk(vm.config),
    disk: 0,
    mem: running ? Math.floor(maxmem / 4) : 0,
    cpu: running ? 0.01 : 0,
    uptime: running && vm.startedAt !== undefined ? Math.floor((now - vm.startedAt) / 1000) : 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
  };
  if (profile.hostPressureInStatus) {
    // 9.x: the host's view of the guest's memory and its cgroup's pressure stall figures.
    Object.assign(row, {
      memhost: row["mem"],
      pressurecpusome: 0,
      pressurecpufull: 0,
      pressureiosome: 0,
      pressureiofull: 0,
      pressurememorysome: 0,
      pressurememoryfull: 0,
    });
  }
  if (running) row["pid"] = 100000 + vm.vmid;
  if (vm.config["template"] === 1) row["template"] = 1;
  if (vm.config["lock"] !== undefined) row["lock"] = vm.config["lock"];
  if (vm.config["tags"] !== undefined) row["tags"] = vm.config["tags"];
  if (Object.keys(vm.config).some((key) => /^serial\d+$/.test(key))) row["serial"] = 1;
  return row;
}

/** One drive's counters as QEMU's query-blockstats reports them; the simulated disks are idle. */
function driveStats(uptimeSeconds: number): Record<string, unknown> {
  const counters = [
    "rd_bytes",
    "wr_bytes",
    "unmap_bytes",
    "zone_append_bytes",
    "rd_operations",
    "wr_operations",
    "flush_operations",
    "unmap_operations",
    "zone_append_operations",
    "rd_merged",
    "wr_merged",
    "unmap_merged",
    "zone_append_merged",
    "rd_total_time_ns",
    "wr_total_time_ns",
    "flush_total_time_ns",
    "unmap_total_time_ns",
    "zone_append_total_time_ns",
    "wr_highest_offset",
    "failed_rd_operations",
    "failed_wr_operations",
    "failed_flush_operations",
    "failed_unmap_operations",
    "failed_zone_append_operations",
    "invalid_rd_operations",
    "invalid_wr_operations",
    "invalid_flush_operations",
    "invalid_unmap_operations",
    "invalid_zone_append_operations",
  ];
  return {
    ...Object.fromEntries(counters.map((name) => [name, 0])),
    idle_time_ns: uptimeSeconds * 1e9,
    account_failed: true,
    account_invalid: true,
    timed_stats: [],
  };
}

/**
 * PVE::QemuServer::vmstatus with `full`: the list row plus what QMP reports for a running VM.
 * The row of `GET /nodes/{node}/qemu?full=1`; `qmpstatus` falls back to `status` when stopped.
 */
export function vmFullStatus(
  vm: VmRecord,
  now: number,
  profile: VersionProfile,
): Record<string, unknown> {
  const row = vmListRow(vm, now, profile);
  row["qmpstatus"] = vm.status === "running" ? vm.qmpstatus : "stopped";
  if (vm.status === "running") {
    const maxmem = Number(row["maxmem"]);
    Object.assign(row, {
      "running-machine": "pc-i440fx-9.0+pve0",
      "running-qemu": "9.0.2",
      balloon: maxmem,
      freemem: Math.floor(maxmem / 2),
      // qemu-server vmstatus (full): query-balloon plus the guest's memory statistics.
      ballooninfo: {
        actual: maxmem,
        max_mem: maxmem,
        total_mem: maxmem - 50 * 1024 ** 2,
        free_mem: Math.floor(maxmem / 2),
        mem_swapped_in: 0,
        mem_swapped_out: 0,
        major_page_faults: 0,
        minor_page_faults: 0,
        last_update: Math.floor(now / 1000),
      },
      // query-blockstats, one entry per attached drive (a CD-ROM drive included).
      blockstat: Object.fromEntries(
        Object.keys(vm.config)
          .filter((key) => /^(ide|sata|scsi|virtio)\d+$/.test(key))
          .map((key) => [key, driveStats(Number(row["uptime"]))]),
      ),
      nics: Object.fromEntries(
        Object.keys(vm.config)
          .filter((key) => /^net\d+$/.test(key))
          .map((key) => [`tap${vm.vmid}i${key.slice(3)}`, { netin: 0, netout: 0 }]),
      ),
      "proxmox-support": {
        "backup-fleecing": true,
        "pbs-dirty-bitmap": true,
        "pbs-dirty-bitmap-migration": true,
        "pbs-dirty-bitmap-savevm": true,
        "pbs-library-version": "1.4.1 (UNKNOWN)",
        "pbs-masterkey": true,
        "query-bitmap-info": true,
        "backup-max-workers": true,
      },
    });
  }
  return row;
}

/** GET …/status/current: the full status plus what the handler adds from the config and HA. */
export function vmCurrentStatus(
  vm: VmRecord,
  now: number,
  profile: VersionProfile,
  ha?: HaResource,
): Record<string, unknown> {
  const row = vmFullStatus(vm, now, profile);
  // PVE::HA::Config::get_service_status: managed unless absent or `ignored`.
  row["ha"] =
    ha === undefined || ha.state === "ignored"
      ? { managed: 0 }
      : { managed: 1, ...(ha.group === undefined ? {} : { group: ha.group }), state: ha.crmState };
  // `agent` means "configured", not "answering".
  if (agentEnabled(vm.config)) row["agent"] = 1;
  if (profile.clipboardInStatus && vm.config["vga"] !== undefined) row["clipboard"] = null;
  return row;
}
