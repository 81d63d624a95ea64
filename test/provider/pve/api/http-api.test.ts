import { inspect } from "node:util";
import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import type { ConnectionConfig } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { Secret } from "../../../../provider/pve/secret.js";
import { expectNoSecret as expectNoSecretIn } from "./no-secret.js";

const ORIGIN = "https://pve.test:8006";
const SECRET = "0b1d4c5e-9f00-4a1b-token-secret";
const UPID = "UPID:pve1:0021B19E:02328820:67CC7B42:qmclone:100:root@pam!ci:";

const connection: ConnectionConfig = {
  origin: ORIGIN,
  login: { kind: "token", tokenId: "root@pam!ci", secret: new Secret(SECRET) },
  insecure: false,
  maxConnections: 8,
};

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

let agent: MockAgent;
let api: HttpProxmoxApi;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  api = new HttpProxmoxApi({ connection, dispatcher: agent });
});

afterEach(async () => {
  await agent.close();
});

/** Replies `status`/`data` once to `method path` and records what the client sent. */
function route(method: string, path: string, status: number, reply: unknown): Seen[] {
  const seen: Seen[] = [];
  agent
    .get(ORIGIN)
    .intercept({ method, path })
    .reply((options) => {
      const headers = options.headers as Record<string, string>;
      seen.push({
        method: options.method,
        path: options.path,
        headers,
        body: String(options.body ?? ""),
      });
      return {
        statusCode: status,
        data: JSON.stringify(reply),
        responseOptions: { headers: { "content-type": "application/json" } },
      };
    });
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<ProxmoxError> {
  try {
    await promise;
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

function expectNoSecret(error: unknown): void {
  expectNoSecretIn(error, SECRET);
}

describe("http-api", () => {
  it("sends the PVEAPIToken header and parses the data envelope", async () => {
    const seen = route("GET", "/api2/json/version", 200, {
      data: { version: "9.0.4", release: "9.0", repoid: "39d8a4de7dfb2c40" },
    });
    await expect(api.version()).resolves.toEqual({
      version: "9.0.4",
      release: "9.0",
      repoid: "39d8a4de7dfb2c40",
    });
    expect(seen[0]?.headers["authorization"]).toBe(`PVEAPIToken=root@pam!ci=${SECRET}`);
  });

  it("form-encodes a clone with booleans as 1/0", async () => {
    const seen = route("POST", "/api2/json/nodes/pve1/qemu/100/clone", 200, { data: UPID });
    await expect(
      api.cloneVm({
        node: "pve1",
        vmid: 100,
        newid: 101,
        name: "web-1",
        full: true,
        target: undefined,
      }),
    ).resolves.toBe(UPID);
    expect(seen[0]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(seen[0]?.body).toBe("newid=101&name=web-1&full=1");
  });

  it("sends config deletes as one comma list with the digest", async () => {
    const seen = route("POST", "/api2/json/nodes/pve1/qemu/100/config", 200, { data: null });
    await expect(
      api.updateVmConfig("pve1", 100, {
        set: { cores: 2, onboot: false },
        delete: ["ide2", "net1"],
        digest: "abc",
      }),
    ).resolves.toBeNull();
    expect(seen[0]?.body).toBe("cores=2&onboot=0&delete=ide2%2Cnet1&digest=abc");
  });

  it("writes a config in place with PUT, in the same form, and resolves with nothing", async () => {
    const seen = route("PUT", "/api2/json/nodes/pve1/qemu/100/config", 200, { data: null });
    await expect(
      api.updateVmConfigSync("pve1", 100, { set: { description: "x" }, delete: ["tags"] }),
    ).resolves.toBeUndefined();
    expect(seen[0]?.body).toBe("description=x&delete=tags");
  });

  it("puts DELETE parameters in the query string and sends no body", async () => {
    const seen = route(
      "DELETE",
      "/api2/json/nodes/pve1/qemu/100?purge=1&destroy-unreferenced-disks=1",
      200,
      { data: UPID },
    );
    await expect(api.destroyVm("pve1", 100)).resolves.toBe(UPID);
    expect(seen[0]?.body).toBe("");
  });

  it("percent-encodes a UPID and a volid in the path", async () => {
    route("GET", `/api2/json/nodes/pve1/tasks/${encodeURIComponent(UPID)}/status`, 200, {
      data: { upid: UPID, node: "pve1", status: "stopped", exitstatus: "OK", pid: 1 },
    });
    await expect(api.taskStatus("pve1", UPID)).resolves.toMatchObject({
      status: "stopped",
      exitstatus: "OK",
    });
    route("DELETE", "/api2/json/nodes/pve1/storage/local/content/local%3Aiso%2Fseed.iso", 200, {
      data: UPID,
    });
    await expect(api.deleteVolume("pve1", "local", "local:iso/seed.iso")).resolves.toBe(UPID);
  });

  it("streams a multipart ISO upload with content=iso and the file part named filename", async () => {
    const seen: Seen[] = [];
    agent
      .get(ORIGIN)
      .intercept({ method: "POST", path: "/api2/json/nodes/pve1/storage/local/upload" })
      .reply(async (options) => {
        const chunks: Buffer[] = [];
        for await (const chunk of options.body as AsyncIterable<Buffer>)
          chunks.push(Buffer.from(chunk));
        seen.push({
          method: "POST",
          path: options.path,
          headers: options.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString("latin1"),
        });
        return { statusCode: 200, data: JSON.stringify({ data: UPID }) };
      });
    const bytes = new Uint8Array(200_000).fill(7);
    await expect(api.uploadIso("pve1", "local", { filename: "seed.iso", bytes })).resolves.toBe(
      UPID,
    );
    const request = seen[0];
    const boundary = /boundary=(.+)$/.exec(request?.headers["content-type"] ?? "")?.[1];
    expect(boundary).toBeDefined();
    expect(Number(request?.headers["content-length"])).toBe(request?.body.length);
    const body = request?.body ?? "";
    expect(
      body.startsWith(
        `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\niso\r\n`,
      ),
    ).toBe(true);
    expect(body).toContain(`Content-Disposition: form-data; name="filename"; filename="seed.iso"`);
    expect(body.endsWith(`\r\n--${boundary}--\r\n`)).toBe(true);
  });

  it("absorbs PVE's scalar quirks: string nextid, 0/1 flags, memory property string", async () => {
    route("GET", "/api2/json/cluster/nextid", 200, { data: "104" });
    await expect(api.nextVmid()).resolves.toBe(104);
    route("GET", "/api2/json/cluster/resources?type=vm", 200, {
      data: [
        {
          id: "qemu/100",
          vmid: 100,
          node: "pve1",
          type: "qemu",
          status: "running",
          name: "a",
          template: 0,
          maxmem: 1,
        },
        { id: "qemu/101", vmid: 101, node: "pve1", type: "qemu", status: "unknown", lock: "clone" },
      ],
    });
    const vms = await api.clusterVms();
    expect(vms[0]).toMatchObject({ vmid: 100, template: false, name: "a" });
    expect(vms[1]).toMatchObject({ vmid: 101, status: "unknown", lock: "clone" });
    route("GET", "/api2/json/nodes/pve1/qemu/100/config", 200, {
      data: { memory: "2048", cores: 2, cpulimit: "4", template: 1, digest: "d" },
    });
    await expect(api.vmConfig("pve1", 100)).resolves.toEqual({
      memory: 2048,
      cores: 2,
      cpulimit: "4",
      template: true,
      digest: "d",
    });
  });

  it("splits GET pending into the config, what the VM runs with and the keys that wait", async () => {
    route("GET", "/api2/json/nodes/pve1/qemu/100/pending", 200, {
      data: [
        { key: "cores", value: 2, pending: 4 },
        { key: "memory", value: "current=2048", pending: "4096" },
        { key: "name", value: "web" },
        { key: "numa", value: 1, delete: 1 },
        { key: "vcpus", pending: 2 },
      ],
    });
    await expect(api.vmPending("pve1", 100)).resolves.toEqual({
      config: { cores: 4, memory: 4096, name: "web", vcpus: 2 },
      current: { cores: 2, memory: 2048, name: "web", numa: 1 },
      pending: ["cores", "memory", "numa", "vcpus"],
    });
  });

  it("maps guest agent answers to GuestInterface, dropping unknown address types", async () => {
    route("GET", "/api2/json/nodes/pve1/qemu/100/agent/network-get-interfaces", 200, {
      data: {
        result: [
          {
            name: "lo",
            "hardware-address": "00:00:00:00:00:00",
            "ip-addresses": [{ "ip-address": "127.0.0.1", "ip-address-type": "ipv4", prefix: 8 }],
          },
          { name: "eth1" },
          {
            name: "eth0",
            "ip-addresses": [
              { "ip-address": "x", "ip-address-type": "other" },
              { "ip-address": "fe80::1", "ip-address-type": "ipv6" },
            ],
          },
        ],
      },
    });
    await expect(api.agentInterfaces("pve1", 100)).resolves.toEqual([
      {
        name: "lo",
        hardwareAddress: "00:00:00:00:00:00",
        ipAddresses: [{ address: "127.0.0.1", type: "ipv4" }],
      },
      { name: "eth1", hardwareAddress: undefined, ipAddresses: [] },
      {
        name: "eth0",
        hardwareAddress: undefined,
        ipAddresses: [{ address: "fe80::1", type: "ipv6" }],
      },
    ]);
  });

  it("names the field of a surprising answer in a BAD_RESPONSE error", async () => {
    route("GET", "/api2/json/cluster/resources?type=vm", 200, {
      data: [
        { vmid: 100, node: "pve1", type: "qemu", status: "running" },
        { vmid: 101, type: "qemu", status: "running" },
      ],
    });
    const error = await failure(api.clusterVms());
    expect(error.code).toBe("BAD_RESPONSE");
    expect(error.message).toBe(
      "GET /cluster/resources: PVE answered with an unexpected shape (data[1].node: expected " +
        "string). This PVE version may be unsupported; please report it with the PVE version.",
    );
  });

  it("rejects a UPID that is not one", async () => {
    route("POST", "/api2/json/nodes/pve1/qemu/100/status/start", 200, { data: "" });
    const error = await failure(api.startVm("pve1", 100));
    expect(error.code).toBe("BAD_RESPONSE");
    expect(error.message).toContain("(data: is not a UPID)");
    expect(error.context).toMatchObject({ node: "pve1", vmid: 100 });
  });

  it("classifies an error answer from its JSON message", async () => {
    route("GET", "/api2/json/nodes/pve1/qemu/999/config", 500, {
      data: null,
      message: "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist\n",
    });
    const error = await failure(api.vmConfig("pve1", 999));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.context).toMatchObject({
      method: "GET",
      path: "/nodes/pve1/qemu/999/config",
      status: 500,
      node: "pve1",
      vmid: 999,
    });
  });

  it("never lets the token into an error, even when the server echoes it", async () => {
    route("GET", "/api2/json/nodes/pve1/qemu/100/config", 500, {
      data: null,
      message: `bad header PVEAPIToken=root@pam!ci=${SECRET}`,
    });
    const echoed = await failure(api.vmConfig("pve1", 100));
    expect(echoed.message).toContain("PVEAPIToken=root@pam!ci=[redacted]");
    expectNoSecret(echoed);

    agent
      .get(ORIGIN)
      .intercept({ method: "GET", path: "/api2/json/version" })
      .replyWithError(
        Object.assign(new Error(`socket hang up ${SECRET}`), {
          code: "ECONNRESET",
          headers: { authorization: SECRET },
        }),
      );
    const network = await failure(api.version());
    expect(network.code).toBe("NETWORK");
    expectNoSecret(network);
    expect(inspect(api, { showHidden: true, depth: 10 })).not.toContain(SECRET);
    expect(JSON.stringify(api)).toBe(
      '{"origin":"https://pve.test:8006","login":"token root@pam!ci"}',
    );
  });

  it("classifies a reset socket as a transient NETWORK error with a scrubbed cause", async () => {
    agent
      .get(ORIGIN)
      .intercept({ method: "GET", path: "/api2/json/nodes" })
      .replyWithError(Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }));
    const error = await failure(api.nodes());
    expect(error).toMatchObject({ code: "NETWORK", transient: true });
    expect(error.message).toBe(
      "GET /nodes: cannot talk to https://pve.test:8006 (UND_ERR_SOCKET: other side closed). " +
        "Check that the endpoint is right and reachable.",
    );
    expect(Object.keys(error.cause as object)).toEqual(["name", "code"]);
  });

  it("does not send a request once its signal has aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(api.withSignal(controller.signal).version());
    expect(error).toMatchObject({
      code: "ABORTED",
      transient: false,
      message: "GET /version was cancelled.",
    });
  });
});
