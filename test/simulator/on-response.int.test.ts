import { Agent, fetch } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type RequestLogEntry, type Simulator } from "../../simulator";

describe("the simulator's onResponse hook and reset fault", () => {
  let sim: Simulator;
  afterEach(() => sim.close());

  // A pinned CA, as the provider's client does.
  const get = (path: string) =>
    fetch(`${sim.url}/api2/json${path}`, {
      headers: { authorization: `PVEAPIToken=${sim.apiToken}` },
      ...(sim.caCertPem === ""
        ? {}
        : { dispatcher: new Agent({ connect: { ca: sim.caCertPem } }) }),
    });

  it("reports each answered request with its log entry, until the listener is removed", async () => {
    sim = await startSimulator({ tls: false });
    const seen: RequestLogEntry[] = [];
    const stop = sim.onResponse((entry) => seen.push(entry));
    expect((await get("/version")).status).toBe(200);
    expect((await get("/nodes")).status).toBe(200);
    stop();
    await get("/version");
    expect(seen.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      "GET /version 200",
      "GET /nodes 200",
    ]);
    expect(seen[0]).toBe(sim.requestLog[0]);
  });

  it("logs when each request arrived, so a client's requests line up with its tasks", async () => {
    sim = await startSimulator({ tls: false });
    const before = Date.now();
    await get("/version");
    const between = Date.now();
    await get("/nodes");
    const [first, second] = sim.requestLog;
    // Each arrival lies between the moments the test sent the request and got the answer.
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(first?.receivedAt).toBeLessThanOrEqual(between);
    expect(second?.receivedAt).toBeGreaterThanOrEqual(between);
    expect(second?.receivedAt).toBeLessThanOrEqual(Date.now());
  });

  it("calls the listener before it serves the next request", async () => {
    sim = await startSimulator({ tls: false });
    const logLengthAtAnswer: number[] = [];
    sim.onResponse(() => logLengthAtAnswer.push(sim.requestLog.length));
    await Promise.all([get("/version"), get("/nodes"), get("/cluster/resources")]);
    expect(logLengthAtAnswer).toEqual([1, 2, 3]);
  });

  it.each([false, true])(
    "resets the connection of a matching request (TLS %s) and reports it with status 0",
    async (tls) => {
      sim = await startSimulator({ tls });
      const seen: number[] = [];
      sim.onResponse((entry) => seen.push(entry.status));
      sim.faults.resetRequests({ path: "^/version$" });
      const error = await get("/version").then(
        () => undefined,
        (e: unknown) => e as Error & { cause?: { code?: string } },
      );
      expect(error?.cause?.code).toBe("ECONNRESET");
      expect((await get("/version")).status).toBe(200);
      expect(seen).toEqual([0, 200]);
    },
  );
});
