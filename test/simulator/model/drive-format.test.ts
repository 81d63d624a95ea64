import { describe, expect, it } from "vitest";
import { parseDrive, printDrive } from "../../../simulator/model/drive-format.js";
import { PVE_VERSIONS } from "../../../simulator/model/versions.js";

/**
 * Drive values as PVE writes them, so parsing and printing one gives it back unchanged: from
 * qemu-server's own test configs (`src/test/cfg2cmd/simple-lvmthin.conf`,
 * `efi-secboot-and-tpm-q35.conf`) and a PVE 6.2 config a client project recorded
 * (`GET /nodes/{node}/qemu/{vmid}/config`, the multi-NIC capture of the community.proxmox tests).
 */
const RECORDED: readonly [string, string][] = [
  ["scsi0", "local-lvm:vm-8006-disk-0,discard=on,size=104858K"],
  ["scsi1", "local-lvm:vm-8006-disk-0,cache=writeback,discard=on,size=104858K"],
  ["efidisk0", "local:100/vm-disk-100-0.raw,efitype=4m,pre-enrolled-keys=1,size=528K"],
  ["tpmstate0", "local:108/vm-100-disk-1.raw,size=4M,version=v2.0"],
  ["scsi1", "storage:vm-103-disk-3,size=30G"],
  ["ide2", "none,media=cdrom"],
];

describe("model/drive-format", () => {
  it.each(PVE_VERSIONS)("prints every recorded drive back unchanged on %s", (release) => {
    for (const [key, value] of RECORDED) {
      const drive = parseDrive(key, value, release);
      expect(drive === undefined ? undefined : printDrive(drive, release)).toBe(value);
    }
  });

  it("reads the file= and volume= key forms like the bare volume and sorts the options", () => {
    const forms = [
      "file=local-lvm:vm-100-disk-0,ssd=1,size=2048M,discard=on",
      "discard=on,volume=local-lvm:vm-100-disk-0,size=2G,ssd=1",
      "local-lvm:vm-100-disk-0,size=2G,discard=on,ssd=1",
    ];
    for (const form of forms) {
      const drive = parseDrive("scsi1", form, "8.4");
      expect(drive === undefined ? undefined : printDrive(drive, "8.4")).toBe(
        "local-lvm:vm-100-disk-0,discard=on,size=2G,ssd=1",
      );
    }
  });

  it("refuses what parse_drive refuses: a CD-ROM with a format, a VirtIO CD-ROM, mbps with mbps_rd", () => {
    expect(parseDrive("ide3", "file=cdrom,media=cdrom,format=raw", "8.4")).toBeUndefined();
    expect(parseDrive("virtio1", "none,media=cdrom", "8.4")).toBeUndefined();
    expect(parseDrive("scsi1", "local-lvm:vm-100-disk-0,mbps=10,mbps_rd=5", "8.4")).toBeUndefined();
    expect(parseDrive("scsi1", "local-lvm:vm-100-disk-0,mbps_max=10", "8.4")).toBeUndefined();
  });

  it("knows the SCSI vendor and product options from 8.x on, not on 7.4", () => {
    const value = "local-lvm:vm-100-disk-0,product=Disk,vendor=ACME";
    expect(parseDrive("scsi0", value, "7.4")).toBeUndefined();
    expect(parseDrive("scsi0", value, "8.4")).toMatchObject({ product: "Disk", vendor: "ACME" });
    expect(parseDrive("scsi0", value, "9.1")).toMatchObject({ product: "Disk", vendor: "ACME" });
  });
});
