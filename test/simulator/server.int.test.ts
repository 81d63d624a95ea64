import { Agent, request } from "undici";
import { describe, expect, it } from "vitest";
import { startWithClient } from "./support/client.js";
import { useSimulator } from "./support/use-simulator.js";

const { sim, api } = useSimulator({ options: { authFailureDelayMs: 150 }, per: "block" });

describe("server", () => {
  it("wraps answers in the {data} envelope with PVE's headers", async () => {
    const res = await api.get("/version");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { version: "8.4.1", release: "8.4", repoid: "2a5fa54a8503f96d" },
    });
    expect(res.headers["content-type"]).toBe("application/json;charset=UTF-8");
    expect(res.headers["server"]).toBe("pve-api-daemon/3.0");
  });

  it("answers 401 with an empty body after the configured delay", async () => {
    const started = Date.now();
    const res = await api.withToken("root@pam!ci=wrong").get("/version");
    expect(res.status).toBe(401);
    expect(res.statusText).toBe("Authentication failed!");
    expect(res.text).toBe("");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const none = await api.withToken("").get("/version");
    expect([none.status, none.statusText, none.text]).toEqual([401, "No ticket", ""]);
  });

  it("answers 501 for unknown routes and for bodies on GET", async () => {
    const res = await api.get("/nodes/pve1/foo");
    expect([res.status, res.statusText]).toEqual([
      501,
      "Method 'GET /nodes/pve1/foo' not implemented",
    ]);
    expect(res.body).toEqual({
      data: null,
      message: "Method 'GET /nodes/pve1/foo' not implemented\n",
    });
    const body = await api.call("GET", "/version", { a: 1 });
    // Raised by the HTTP server itself: no JSON envelope, the text as the body (5.2.0 and later).
    expect([body.status, body.statusText, body.text]).toEqual([
      501,
      "Unexpected content for method 'GET'",
      "Unexpected content for method 'GET'\n",
    ]);
  });

  it("answers 500 'hostname lookup' for a node that is not in the cluster", async () => {
    const res = await api.get("/nodes/pve9/qemu");
    expect(res.status).toBe(500);
    expect(res.statusText).toBe(
      "hostname lookup 'pve9' failed - failed to get address info for: pve9: Name or service not known",
    );
  });

  it("fails the next N matching requests with the injected status and message", async () => {
    sim.faults.failRequests(
      { method: "GET", path: /^\/cluster\/nextid$/, count: 2 },
      503,
      "service busy",
    );
    const first = await api.get("/cluster/nextid");
    const second = await api.get("/cluster/nextid");
    const third = await api.get("/cluster/nextid");
    expect([first.status, first.statusText, first.body]).toEqual([
      503,
      "service busy",
      { data: null, message: "service busy\n" },
    ]);
    expect(second.status).toBe(503);
    expect(third.status).toBe(200);
  });

  it("delays matching requests", async () => {
    sim.faults.delayRequests({ path: "^/version$" }, 200);
    const started = Date.now();
    await api.get("/version");
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("drops the connection for matching requests and logs status 0", async () => {
    sim.faults.dropRequests({ path: /^\/nodes$/ });
    await expect(api.get("/nodes")).rejects.toThrow();
    expect(sim.requestLog.at(-1)).toMatchObject({ method: "GET", path: "/nodes", status: 0 });
    expect((await api.get("/nodes")).status).toBe(200);
  });

  it("carries out a request whose answer it then loses", async () => {
    sim.faults.loseAnswers({ method: "PUT", path: "^/nodes/pve1/qemu/9000/config$" });
    await expect(
      api.call("PUT", "/nodes/pve1/qemu/9000/config", { description: "changed unseen" }),
    ).rejects.toThrow();
    expect(sim.requestLog.at(-1)).toMatchObject({ method: "PUT", status: 0 });
    const config = await api.get("/nodes/pve1/qemu/9000/config");
    expect((config.body?.["data"] as Record<string, unknown>)["description"]).toBe(
      "changed unseen",
    );
  });

  it("answers 595/596 with an empty body while a node is down, and recovers", async () => {
    sim.faults.nodeDown("pve2");
    const res = await api.get("/nodes/pve2/qemu");
    expect([res.status, res.statusText, res.text]).toEqual([595, "No route to host", ""]);
    const nodes = await api.get("/nodes");
    expect(
      (nodes.body?.["data"] as { node: string; status: string }[]).map((n) => [n.node, n.status]),
    ).toEqual([
      ["pve1", "online"],
      ["pve2", "offline"],
    ]);
    sim.faults.nodeDown("pve2", 596);
    expect((await api.get("/nodes/pve2/qemu")).statusText).toBe("Connection timed out");
    sim.faults.nodeUp("pve2");
    expect((await api.get("/nodes/pve2/qemu")).status).toBe(200);
  });

  it("logs method, path, status, duration and token id but never the secret", async () => {
    sim.clearRequestLog();
    await api.get("/cluster/resources?type=vm");
    expect(sim.requestLog).toHaveLength(1);
    const entry = sim.requestLog[0];
    expect(entry).toMatchObject({
      method: "GET",
      path: "/cluster/resources",
      status: 200,
      tokenId: "root@pam!ci",
    });
    expect(typeof entry?.durationMs).toBe("number");
    expect(JSON.stringify(sim.requestLog)).not.toContain(sim.apiToken.split("=")[1]);
  });

  it("refuses TLS clients that do not pin the generated CA", async () => {
    const agent = new Agent();
    await expect(request(`${sim.url}/api2/json/version`, { dispatcher: agent })).rejects.toThrow(
      /self-signed|unable to verify|certificate/i,
    );
    await agent.close();
  });

  it("drives faults and drift through the admin API", async () => {
    const post = (path: string, body: unknown, method = "POST") =>
      request(`${sim.url}/_sim${path}`, {
        method: method as "POST",
        dispatcher: new Agent({ connect: { ca: sim.caCertPem } }),
        body: JSON.stringify(body),
      }).then(async (r) => [r.statusCode, await r.body.json()]);
    expect(
      await post("/faults/fail", {
        method: "GET",
        path: "^/version$",
        status: 500,
        message: "boom",
      }),
    ).toEqual([200, { ok: true }]);
    expect((await api.get("/version")).statusText).toBe("boom");
    expect(await post("/vms/9000/config", { cores: 8 }, "PUT")).toEqual([200, { ok: true }]);
    expect(sim.model.vms.get(9000)?.config["cores"]).toBe(8);
    expect(await post("/vms/9000/lock", { lock: "backup" }, "PUT")).toEqual([200, { ok: true }]);
    expect(sim.model.vms.get(9000)?.config["lock"]).toBe("backup");
    expect(await post("/vms/9000/lock", {}, "DELETE")).toEqual([200, { ok: true }]);
    expect(await post("/nodes/pve2/down", { status: 596 })).toEqual([200, { ok: true }]);
    expect((await api.get("/nodes/pve2/qemu")).status).toBe(596);
    expect(await post("/nodes/pve2/up", {})).toEqual([200, { ok: true }]);
    expect(await post("/nope", {})).toEqual([404, { error: "no admin route 'POST /_sim/nope'" }]);
  });

  it("restores a dumped VM through the admin API: config, power state and the seed's bytes", async () => {
    const put = (vmid: number, body: unknown) =>
      request(`${sim.url}/_sim/vms/${vmid}`, {
        method: "PUT",
        dispatcher: new Agent({ connect: { ca: sim.caCertPem } }),
        body: JSON.stringify(body),
      }).then(async (r) => [r.statusCode, await r.body.json()]);
    const seed = "local:iso/pp-restored.iso";
    const dump = {
      vm: {
        vmid: 4242,
        node: "pve1",
        config: { name: "restored", cores: 2, ide2: `${seed},media=cdrom`, description: "mark" },
        pending: {},
        status: "running",
        qmpstatus: "running",
        createdAt: 1,
        startedAt: 1,
        guest: {},
      },
      volumes: [
        {
          node: "pve1",
          volume: {
            volid: seed,
            storage: "local",
            content: "iso",
            format: "iso",
            size: 5,
            ctime: 1,
            vmid: 4242,
            data: Buffer.from("hello").toString("base64"),
          },
        },
      ],
    };
    expect(await put(4242, dump)).toEqual([200, { ok: true }]);
    const config = await api.get("/nodes/pve1/qemu/4242/config");
    expect(config.body).toMatchObject({ data: { name: "restored", description: "mark" } });
    const status = await api.get("/nodes/pve1/qemu/4242/status/current");
    expect(status.body).toMatchObject({ data: { status: "running" } });
    const volume = sim.model.volumes("pve1", "local").find((v) => v.volid === seed);
    expect(volume?.data?.toString()).toBe("hello");

    expect(await put(4242, dump)).toEqual([400, { error: "VM 4242 already exists" }]);
    expect(await put(4243, dump)).toEqual([
      400,
      { error: "'vm.vmid' must be 4243, as in the path" },
    ]);
    sim.faults.deleteVm(4242);
  });
});

describe("server with a node's API workers busy", () => {
  it("queues a node's requests beyond its workers while another node answers at once", async () => {
    const { sim: busy, api: client } = await startWithClient({
      apiWorkers: 1,
      requestLatencyMs: 300,
    });
    try {
      await Promise.all([
        client.get("/nodes/pve1/version"),
        client.get("/nodes/pve1/qemu"),
        client.get("/nodes/pve1/storage"),
        client.get("/nodes/pve1/version"),
        client.get("/nodes/pve2/qemu"),
      ]);
      // pve1's one worker serves its four requests one after the other; pve2's is free, so
      // pve2 answers alongside the first of pve1's.
      const answered = busy.requestLog.map((entry) => entry.path);
      expect(answered).toHaveLength(5);
      expect(answered.slice(0, 2)).toContain("/nodes/pve2/qemu");
    } finally {
      await client.close();
      await busy.close();
    }
  });
});
