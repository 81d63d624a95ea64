import { describe, expect, it } from "vitest";
import { parseNic, printNic, renderNic } from "../../../simulator/model/nic-format.js";

/**
 * NIC values as PVE writes them: qemu-server's `src/test/cfg2cmd/netdev-7.1.conf` and the
 * default templates of this simulator.
 */
const RECORDED = [
  "virtio=A2:C0:43:77:08:A0,bridge=vmbr0,mtu=900",
  "virtio=BC:24:11:90:00:00,bridge=vmbr0",
  "e1000=BC:24:11:12:34:56,bridge=vmbr1,firewall=1,link_down=1,queues=4,rate=12.5,tag=20,trunks=10;20-30",
];

describe("model/nic-format", () => {
  it("prints every recorded NIC back unchanged", () => {
    for (const value of RECORDED) {
      const nic = parseNic(value, true);
      expect(nic === undefined ? undefined : printNic(nic)).toBe(value);
    }
  });

  it("joins model= and macaddr= into <model>=<mac> and sorts the other options", () => {
    expect(renderNic("tag=5,model=e1000,macaddr=BC:24:11:AA:BB:CC,bridge=vmbr0")).toBe(
      "e1000=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=5",
    );
  });

  it("generates a MAC with Proxmox's prefix for either form without one", () => {
    for (const form of ["model=virtio,bridge=vmbr0,firewall=0", "virtio,firewall=0,bridge=vmbr0"])
      expect(renderNic(form)).toMatch(/^virtio=BC:24:11(:[0-9A-F]{2}){3},bridge=vmbr0,firewall=0$/);
  });
});
