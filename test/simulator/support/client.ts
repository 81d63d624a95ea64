import { Agent, request } from "undici";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../../simulator/index.js";

export interface ApiResponse {
  readonly status: number;
  readonly statusText: string;
  readonly text: string;
  readonly body: Record<string, unknown> | null;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** A tiny PVE client for the simulator tests: form-encoded bodies, pinned CA, raw answers. */
export class TestClient {
  private readonly agent: Agent;

  constructor(
    readonly sim: Simulator,
    private readonly token = sim.apiToken,
  ) {
    this.agent = new Agent({ connect: { ca: sim.caCertPem }, pipelining: 0 });
  }

  withToken(token: string): TestClient {
    return new TestClient(this.sim, token);
  }

  async call(
    method: string,
    path: string,
    params?: Record<string, string | number | readonly string[]>,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    // An array is sent as its key repeated, as PVE's clients send an array parameter.
    const body =
      params === undefined
        ? undefined
        : new URLSearchParams(
            Object.entries(params).flatMap(([k, v]): [string, string][] =>
              Array.isArray(v) ? v.map((item: string) => [k, item]) : [[k, String(v)]],
            ),
          ).toString();
    const res = await request(`${this.sim.url}/api2/json${path}`, {
      method: method as "GET",
      dispatcher: this.agent,
      headers: {
        ...(this.token === "" ? {} : { authorization: `PVEAPIToken=${this.token}` }),
        ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      statusText: (res as unknown as { statusText?: string }).statusText ?? "",
      text,
      // The HTTP server's own errors (no such uri, content on a GET) are bare text, not JSON.
      body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : null,
      headers: res.headers,
    };
  }

  get(path: string): Promise<ApiResponse> {
    return this.call("GET", path);
  }

  /** PUT …/config of a VM (synchronous update_vm). */
  putConfig(
    node: string,
    vmid: number,
    params: Record<string, string | number>,
  ): Promise<ApiResponse> {
    return this.call("PUT", `/nodes/${node}/qemu/${vmid}/config`, params);
  }

  /** A VM's config: with pending values applied, or as it is now with `current`. */
  async vmConfig(node: string, vmid: number, current = false): Promise<Record<string, unknown>> {
    const res = await this.get(`/nodes/${node}/qemu/${vmid}/config${current ? "?current=1" : ""}`);
    return res.body?.["data"] as Record<string, unknown>;
  }

  /** Polls a task until it stops; returns its final status data. */
  async waitTask(node: string, upid: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 500; i += 1) {
      const res = await this.get(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      const data = res.body?.["data"] as Record<string, unknown>;
      if (data["status"] === "stopped") return data;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`task ${upid} did not finish`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Starts a simulator with fast defaults and a client for it. */
export async function startWithClient(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; api: TestClient }> {
  const sim = await startSimulator({
    defaultTaskMs: 20,
    guestBootMs: 20,
    authFailureDelayMs: 50,
    ...options,
  });
  return { sim, api: new TestClient(sim) };
}

export function data(res: ApiResponse): unknown {
  return res.body?.["data"];
}

/** A simulator and client with VM 100 ("web") already cloned from template 9000 on pve1. */
export async function startWithClonedVm(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; api: TestClient }> {
  const started = await startWithClient(options);
  const upid = data(
    await started.api.call("POST", "/nodes/pve1/qemu/9000/clone", { newid: 100, name: "web" }),
  );
  await started.api.waitTask("pve1", String(upid));
  return started;
}

/**
 * Polls `done` every 20 ms until it holds, for up to 10 s: tests wait for what they need to have
 * happened, never for a fixed time that a loaded machine may overrun.
 */
export async function until(
  done: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether the guest of VM `vmid` has booted and its agent answers. */
export function guestBooted(sim: Simulator, vmid: number): boolean {
  const upAt = sim.model.vms.get(vmid)?.guest.agentUpAt;
  return upAt !== undefined && Date.now() >= upAt;
}
