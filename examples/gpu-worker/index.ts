import * as pulumi from "@pulumi/pulumi";
import { ProxmoxVm } from "pulumi-proxmox";

// Connection settings come from stack config (`proxmox:endpoint`, `proxmox:apiToken` as a
// secret, `proxmox:caCert`) or from PROXMOX_VE_ENDPOINT / PROXMOX_VE_API_TOKEN. The mappings
// are made once by an admin (Datacenter → Resource Mappings, or setup-mappings.js here).
const config = new pulumi.Config();
const template = config.get("template") ?? "debian-12-cloud";
const share = config.get("shareMapping") ?? "datasets";
const gpuHost = config.get("gpuHost") ?? "";
const usbMapping = config.get("usbMapping") ?? "";
const readMBps = config.getNumber("diskReadMBps") ?? 400;
const hookscript = config.get("hookscript") ?? "";

const workers = Array.from({ length: config.getNumber("workers") ?? 1 }, (_, i) => {
  return new ProxmoxVm(`gpu-worker-${i}`, {
    node: config.get("node") ?? "pve1",
    template: /^\d+$/.test(template) ? Number(template) : template,
    cores: 8,
    memory: 16384,
    // A GPU on the PCI Express bus needs the q35 machine.
    machine: "q35",
    // The boot disk, throttled so a worker's dataset reads do not starve its neighbours.
    disks: [{ interface: "scsi0", sizeGiB: 32, ioLimits: { readMBps, writeMBps: 200 } }],
    // A trunk port: the guest tags its own VLANs (10 for jobs, 20 for storage).
    networks: [{ bridge: "vmbr0", trunks: [10, 20] }],
    hostPci: [
      gpuHost === ""
        ? { mapping: config.get("gpuMapping") ?? "gpu0", pcie: true }
        : { host: gpuHost, pcie: true },
    ],
    ...(usbMapping === "" ? {} : { usb: [{ mapping: usbMapping, usb3: true }] }),
    virtiofs: [{ mapping: share, cache: "always" }],
    // PVE lets only root@pam (a password login) set a hookscript, as it does raw host ids.
    ...(hookscript === "" ? {} : { hookscript }),
    rng: { source: "/dev/urandom" },
    watchdog: { model: "i6300esb", action: "reset" },
    // A new GPU waits for the next reboot; this lets `pulumi up` make it.
    rebootPolicy: "allow",
    cloudInit: {
      // The guest mounts the share by its mapping id (the virtiofs tag).
      runcmd: [`mkdir -p /mnt/${share}`, `mount -t virtiofs ${share} /mnt/${share}`],
    },
  });
});

export const vmids = workers.map((vm) => vm.vmid);
export const names = workers.map((vm) => vm.vmName);
