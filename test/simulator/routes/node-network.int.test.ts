import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator/index.js";
import { data, startWithClient, startWithClonedVm, type TestClient } from "../support/client.js";
import { taskLog } from "../support/image-server.js";

let sim: Simulator | undefined;
let api: TestClient | undefined;

afterEach(async () => {
  await api?.close();
  await sim?.close();
  api = sim = undefined;
});

const ifaces = async (client: TestClient, query = "") =>
  (data(await client.get(`/nodes/pve1/network${query}`)) as { iface: string; type: string }[]).map(
    ({ iface, type }) => `${iface}:${type}`,
  );

// pve-manager PVE/API2/Network.pm `index`; pve-access-control RPCEnvironment.pm check_sdn_bridge.
describe("routes/node-network", () => {
  it("lists the node's port and bridges, and only bridges for type any_bridge", async () => {
    ({ sim, api } = await startWithClient({
      bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24" },
      nodes: [{ name: "pve1", bridges: ["vmbr0", "vmbr5"] }, { name: "pve2" }],
    }));
    expect(await ifaces(api)).toEqual(["eno1:eth", "vmbr0:bridge", "vmbr5:bridge"]);
    expect(await ifaces(api, "?type=any_bridge")).toEqual(["vmbr0:bridge", "vmbr5:bridge"]);
    expect(await ifaces(api, "?type=eth")).toEqual(["eno1:eth"]);
    const pve2 = data(await api.get("/nodes/pve2/network?type=bridge")) as { iface: string }[];
    expect(pve2.map((row) => row.iface)).toEqual(["vmbr0", "vmbr1"]);
  });

  it("refuses a type the release does not list, naming the ones it does", async () => {
    ({ sim, api } = await startWithClient({ pveVersion: "7.4" }));
    const res = await api.get("/nodes/pve1/network?type=any_local_bridge");
    expect(res.status).toBe(400);
    expect(res.body?.["errors"]).toEqual({
      type:
        "value 'any_local_bridge' does not have a value in the enumeration 'bridge, bond, eth, " +
        "alias, vlan, OVSBridge, OVSBond, OVSPort, OVSIntPort, any_bridge'",
    });
  });

  it("lists a bridge only to a token with SDN.Audit or SDN.Use on it or on one of its VLANs", async () => {
    ({ sim, api } = await startWithClient({
      bridges: { vmbr0: "10.10.0.0/24", vmbr1: "10.20.0.0/24", vmbr2: "10.30.0.0/24" },
    }));
    const token = sim.addToken("deploy@pve!ci", [
      { path: "/sdn/zones/localnetwork/vmbr0", privileges: ["SDN.Use"] },
      { path: "/sdn/zones/localnetwork/vmbr2/20", privileges: ["SDN.Audit"] },
    ]);
    const deploy = api.withToken(token);
    try {
      expect(await ifaces(deploy, "?type=any_bridge")).toEqual(["vmbr0:bridge", "vmbr2:bridge"]);
    } finally {
      await deploy.close();
    }
  });

  it("lists every bridge on 7.4, which has no SDN privileges", async () => {
    ({ sim, api } = await startWithClient({ pveVersion: "7.4" }));
    const token = sim.addToken("deploy@pve!ci", [{ path: "/vms", privileges: ["VM.Audit"] }]);
    const deploy = api.withToken(token);
    try {
      expect(await ifaces(deploy, "?type=any_bridge")).toEqual(["vmbr0:bridge"]);
    } finally {
      await deploy.close();
    }
  });
});

// pve-common src/PVE/Network.pm `$read_bridge_mtu`: "bridge '<name>' does not exist", raised by
// qemu-server's pve-bridge script while QEMU starts; vm_start then dies "start failed: QEMU
// exited with code 1".
describe("routes/qemu-power with a NIC on a bridge the node lacks", () => {
  it("writes the config, then fails the start task naming the bridge in its log", async () => {
    ({ sim, api } = await startWithClonedVm());
    const put = await api.call("PUT", "/nodes/pve1/qemu/100/config", {
      net1: "virtio,bridge=vmbr9",
    });
    expect(put.status).toBe(200);
    const upid = String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start")));
    const status = await api.waitTask("pve1", upid);
    expect(status["exitstatus"]).toBe("start failed: QEMU exited with code 1");
    const log = await taskLog(api, "pve1", upid);
    expect(log[0]).toBe("bridge 'vmbr9' does not exist");
    expect(log[1]).toMatch(
      /^kvm: -netdev type=tap,id=net1,ifname=tap100i1,script=\/usr\/libexec\/qemu-server\/pve-bridge,.*failed with status 512$/,
    );
    expect(sim.model.vms.get(100)?.status).toBe("stopped");
  });

  it("starts the VM once the admin adds the bridge to the node", async () => {
    ({ sim, api } = await startWithClonedVm());
    await api.call("PUT", "/nodes/pve1/qemu/100/config", { net1: "virtio,bridge=vmbr9" });
    const dispatcher = new Agent({ connect: { ca: sim.caCertPem } });
    const res = await request(`${sim.url}/_sim/nodes/pve1/bridges`, {
      method: "PUT",
      dispatcher,
      body: JSON.stringify({ bridges: ["vmbr0", "vmbr9"] }),
    });
    expect([res.statusCode, await res.body.json()]).toEqual([200, { ok: true }]);
    await dispatcher.close();
    expect(await ifaces(api, "?type=bridge")).toEqual(["vmbr0:bridge", "vmbr9:bridge"]);
    const upid = String(data(await api.call("POST", "/nodes/pve1/qemu/100/status/start")));
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
  });
});
