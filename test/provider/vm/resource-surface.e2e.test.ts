import { beforeAll, describe, expect, it } from "vitest";
import { expectSuccess } from "../../support/command-result";
import { useStack } from "../../e2e/support/use-stack";

/** A VM with every input of the host-facing surface; the two live settings come from config. */
const program = `
const pulumi = require("@pulumi/pulumi");
const { ProxmoxVm } = require("pulumi-proxmox");
const config = new pulumi.Config();
const vm = new ProxmoxVm("surface", {
  node: "pve1", template: 9000, waitForIp: false,
  memory: { sizeMiB: 2048, hugepages: 2 },
  cpu: { sockets: 1, cores: 2, units: 200, limit: 1.5, affinity: "0-1" },
  numa: [{ cpus: "0-1", memoryMiB: 2048, hostNodes: "0", policy: "bind" }],
  audio: { device: "ich9-intel-hda", driver: "none" },
  hookscript: "local:snippets/hook.pl",
  disks: [{
    interface: "scsi0", sizeGiB: 2, aio: "io_uring",
    ioLimits: {
      readMBps: config.getNumber("readMBps") ?? 100,
      writeIops: 300, writeBurstIops: 600, burstSeconds: 10,
    },
  }],
  networks: [{ bridge: "vmbr0", trunks: [20, 10], linkDown: config.getBoolean("linkDown") ?? false }],
});
exports.vmid = vm.vmid;
`;

describe("ProxmoxVm hookscript, CPU, NUMA, audio, disk I/O and NIC trunks through the real engine", () => {
  // hookscript, cpu.affinity and memory.hugepages are root@pam's alone in PVE.
  const stack = useStack(
    { name: "surface", program },
    { rootLogin: true, destroyAfter: true, simulator: { guestBootMs: 20 } },
  );
  let vmid: number;
  const vm = () => stack.sim.model.vms.get(vmid);
  const driftCheck = async () =>
    expectSuccess(await stack.pulumi(["preview", "--refresh", "--expect-no-changes", "--diff"]));

  beforeAll(async () => {
    stack.sim.faults.putSnippet("pve1", "local", "hook.pl", true);
    await stack.up();
    const outputs = await stack.pulumi(["stack", "output", "--json"]);
    vmid = (JSON.parse(outputs.stdout) as { vmid: number }).vmid;
  });

  it("creates the VM with each setting in PVE's keys, and a refresh finds nothing to change", async () => {
    expect(vm()?.config).toMatchObject({
      hookscript: "local:snippets/hook.pl",
      affinity: "0-1",
      cpuunits: 200,
      cpulimit: "1.5",
      hugepages: "2",
      numa: 1,
      numa0: "cpus=0-1,hostnodes=0,memory=2048,policy=bind",
      audio0: "device=ich9-intel-hda,driver=none",
      scsi0: expect.stringMatching(
        /,aio=io_uring,.*iops_wr=300,iops_wr_max=600,iops_wr_max_length=10,mbps_rd=100,/,
      ),
      net0: expect.stringMatching(/,link_down=0,trunks=10;20$/),
    });
    expect(vm()?.status).toBe("running");
    await driftCheck();
  });

  it("applies new I/O limits and a pulled cable to the running VM with no reboot", async () => {
    const startedAt = vm()?.startedAt;
    stack.sim.clearRequestLog();
    expectSuccess(await stack.pulumi(["config", "set", "readMBps", "40"]));
    expectSuccess(await stack.pulumi(["config", "set", "linkDown", "true"]));
    await stack.up();

    expect(vm()?.config["scsi0"]).toMatch(/,mbps_rd=40,/);
    expect(vm()?.config["net0"]).toMatch(/,link_down=1,/);
    expect(vm()?.startedAt).toBe(startedAt);
    const power = stack.sim.requestLog.filter((entry) =>
      /\/status\/(reboot|shutdown|stop|start)$/.test(entry.path),
    );
    expect(power).toEqual([]);
    await driftCheck();
  });
});
