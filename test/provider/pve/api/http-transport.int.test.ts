import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  sharedDispatcher,
  sharedDispatcherCount,
} from "../../../../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import type { ConnectionConfig } from "../../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../../provider/pve/errors.js";
import { Secret } from "../../../../provider/pve/secret.js";
import { expectNoSecret } from "./no-secret.js";

/**
 * The HTTP client over a real loopback socket, against a tiny server that answers the way old
 * and new PVE builds do (reason phrase only vs. JSON `message`), and misbehaves on purpose.
 */

const SECRET = "7d1c0f3e-transport-secret";
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let handler: Handler = (_req, res) => res.end();
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function connection(at = origin): ConnectionConfig {
  return {
    origin: at,
    login: { kind: "token", tokenId: "root@pam!ci", secret: new Secret(SECRET) },
    insecure: false,
    maxConnections: 8,
  };
}

async function failure(promise: Promise<unknown>): Promise<ProxmoxError> {
  try {
    await promise;
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

describe("http-api over a socket", () => {
  it("classifies an old-style error whose text is only in the reason phrase", async () => {
    handler = (_req, res) => {
      res.writeHead(500, "VM is locked (clone)", { "content-type": "application/json" });
      res.end('{"data":null}');
    };
    const error = await failure(
      new HttpProxmoxApi({ connection: connection() }).vmConfig("pve1", 100),
    );
    expect(error).toMatchObject({
      code: "LOCKED",
      transient: true,
      context: { lock: "clone", vmid: 100, status: 500 },
    });
    expectNoSecret(error, SECRET);
  });

  it("classifies a 401 with an empty body as AUTH", async () => {
    handler = (_req, res) => {
      res.writeHead(401, "No ticket");
      res.end();
    };
    const error = await failure(new HttpProxmoxApi({ connection: connection() }).version());
    expect(error).toMatchObject({
      code: "AUTH",
      transient: false,
      context: { pveMessage: "No ticket" },
    });
    expectNoSecret(error, SECRET);
  });

  it("classifies a 595 proxy error as UNAVAILABLE node-down", async () => {
    handler = (_req, res) => {
      res.writeHead(595, "No route to host");
      res.end();
    };
    const error = await failure(
      new HttpProxmoxApi({ connection: connection() }).vmStatus("pve2", 100),
    );
    expect(error).toMatchObject({
      code: "UNAVAILABLE",
      context: { unavailable: "node-down", node: "pve2" },
    });
    expectNoSecret(error, SECRET);
  });

  it("times out a request that gets no answer", async () => {
    handler = () => undefined;
    const api = new HttpProxmoxApi({ connection: connection(), timeoutMs: 200 });
    const started = Date.now();
    const error = await failure(api.clusterVms());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ code: "TIMEOUT", transient: true });
    expect(error.message).toBe(
      `GET /cluster/resources got no answer from ${origin} within 0 s. The request may still ` +
        "have been applied.",
    );
    expectNoSecret(error, SECRET);
  });

  it("cancels a request in flight when its signal aborts", async () => {
    handler = () => undefined;
    const controller = new AbortController();
    const pending = failure(
      new HttpProxmoxApi({ connection: connection(), signal: controller.signal }).nodes(),
    );
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).toMatchObject({ code: "ABORTED", transient: false });
    expectNoSecret(error, SECRET);
  });

  it("reports a refused connection as a transient NETWORK error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(
      new HttpProxmoxApi({ connection: connection(`http://127.0.0.1:${port}`) }).version(),
    );
    expect(error).toMatchObject({ code: "NETWORK", transient: true });
    expect(error.message).toContain("(ECONNREFUSED:");
    expectNoSecret(error, SECRET);
  });

  it("reports a non-JSON 200 as BAD_RESPONSE", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>login</html>");
    };
    const error = await failure(new HttpProxmoxApi({ connection: connection() }).version());
    expect(error).toMatchObject({ code: "BAD_RESPONSE", context: { status: 200 } });
  });

  it("shares one pool and its keep-alive connection between API instances", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"data":{"version":"8.4.1","release":"8.4","repoid":"2a5fa54a8503f96d"}}');
    };
    const before = sharedDispatcherCount();
    const conn = connection(origin.replace("127.0.0.1", "localhost"));
    const first = new HttpProxmoxApi({ connection: conn });
    const second = new HttpProxmoxApi({
      connection: {
        ...conn,
        login: { kind: "token", tokenId: "root@pam!ci", secret: new Secret("other") },
      },
    });
    const socketsBefore = sockets.size;
    const views = [first, second, first.withSignal(new AbortController().signal)];
    for (let i = 0; i < 6; i++) await views[i % 3]?.version();
    expect(sharedDispatcherCount()).toBe(before + 1);
    const settings = { origin: conn.origin, insecure: false, connections: 8 };
    expect(sharedDispatcher(settings)).toBe(sharedDispatcher(settings));
    // Keep-alive reuse across instances: fewer connections than requests (undici's Pool may
    // open a second one while the first is still finishing a response).
    expect(sockets.size - socketsBefore).toBeLessThan(6);
  });
});
