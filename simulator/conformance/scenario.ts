/**
 * The fixed, safe scenario `pve-sim conformance` runs on a real cluster and on the simulator:
 * read-only calls first, then one VM cloned from the given template into the given VMID range,
 * written in both the positional and the `key=` forms of a drive and a NIC, resized, started,
 * asked about by the guest agent, stopped and deleted. The VM is deleted after any failure.
 */
import type { ConformanceClient, Exchange } from "./client.js";

export interface ScenarioTarget {
  readonly node: string;
  readonly template: number;
  readonly range: { readonly min: number; readonly max: number };
  /** How long a task may run before the scenario gives up (a real full clone takes minutes). */
  readonly taskTimeoutMs: number;
}

export interface ScenarioResult {
  /** The step that failed, with its cause; undefined when the whole scenario ran. */
  readonly failure: string | undefined;
  /** The VMID the scenario cloned to, if it got that far. */
  readonly vmid: number | undefined;
  /** Whether the VM was left behind (its delete failed too): the report says so loudly. */
  readonly leftVm: boolean;
}

/** The VM name the scenario gives its clone: recognisable in the PVE UI, and by `sweep`. */
export const SCENARIO_VM_NAME = "pve-sim-conformance";

export async function runScenario(
  client: ConformanceClient,
  target: ScenarioTarget,
): Promise<ScenarioResult> {
  const { node, template } = target;
  const base = `/nodes/${node}/qemu`;
  let vmid: number | undefined;
  try {
    await client.call("version", "GET", "/version");
    await client.call("nodes", "GET", "/nodes");
    await client.call("storages", "GET", `/nodes/${node}/storage`);
    const listing = await client.call("cluster-resources", "GET", "/cluster/resources", {
      type: "vm",
    });
    await client.call("node-vms", "GET", base);
    await client.call("node-tasks", "GET", `/nodes/${node}/tasks`, { limit: 5 });
    const templateConfig = ok(
      await client.call("template-config", "GET", `${base}/${template}/config`),
    );
    vmid = freeVmid(listing, target.range);
    const bridge = bridgeOf(templateConfig.data) ?? "vmbr0";
    const disk = diskOf(templateConfig.data);

    const clone = ok(
      await client.call("clone", "POST", `${base}/${template}/clone`, {
        newid: vmid,
        name: SCENARIO_VM_NAME,
      }),
    );
    await waitTask(client, "clone-task", node, String(clone.data), target.taskTimeoutMs);
    await client.call("clone-config", "GET", `${base}/${vmid}/config`);
    ok(
      await client.call("config-key-forms", "PUT", `${base}/${vmid}/config`, {
        net1: `model=virtio,bridge=${bridge},firewall=0`,
        ide3: "file=none,media=cdrom",
        description: "pve-sim conformance scenario",
      }),
    );
    ok(
      await client.call("config-positional-forms", "PUT", `${base}/${vmid}/config`, {
        net2: `virtio,bridge=${bridge}`,
        ide2: "none,media=cdrom",
      }),
    );
    await client.call("config-rendered", "GET", `${base}/${vmid}/config`);
    await client.call("pending", "GET", `${base}/${vmid}/pending`);
    if (disk !== undefined) {
      ok(await client.call("resize", "PUT", `${base}/${vmid}/resize`, { disk, size: "+1G" }));
    }
    const start = ok(await client.call("start", "POST", `${base}/${vmid}/status/start`));
    await waitTask(client, "start-task", node, String(start.data), target.taskTimeoutMs);
    await client.call("status-running", "GET", `${base}/${vmid}/status/current`);
    await waitAgent(client, `${base}/${vmid}/agent/ping`, Math.min(target.taskTimeoutMs, 60_000));
    await client.call("agent-ping", "POST", `${base}/${vmid}/agent/ping`);
    await client.call("agent-network", "GET", `${base}/${vmid}/agent/network-get-interfaces`);
    const stop = ok(await client.call("stop", "POST", `${base}/${vmid}/status/stop`));
    await waitTask(client, "stop-task", node, String(stop.data), target.taskTimeoutMs);
    const deleted = ok(await client.call("delete", "DELETE", `${base}/${vmid}`, { purge: 1 }));
    await waitTask(client, "delete-task", node, String(deleted.data), target.taskTimeoutMs);
    await client.call("deleted-config", "GET", `${base}/${vmid}/config`);
    return { failure: undefined, vmid, leftVm: false };
  } catch (err) {
    const failure = err instanceof Error ? err.message : String(err);
    const leftVm = vmid === undefined ? false : !(await cleanUp(client, node, vmid, target));
    return { failure, vmid, leftVm };
  }
}

/** Stops and deletes the scenario's VM after a failure; false when it is still there. */
async function cleanUp(
  client: ConformanceClient,
  node: string,
  vmid: number,
  target: ScenarioTarget,
): Promise<boolean> {
  const base = `/nodes/${node}/qemu/${vmid}`;
  try {
    const config = await client.call("cleanup", "GET", `${base}/config`, {}, false);
    if (config.status !== 200) return true;
    const stop = await client.call("cleanup", "POST", `${base}/status/stop`, {}, false);
    if (stop.status === 200)
      await waitTask(client, "", node, String(stop.data), target.taskTimeoutMs, false);
    const del = await client.call("cleanup", "DELETE", base, { purge: 1 }, false);
    if (del.status !== 200) return false;
    await waitTask(client, "", node, String(del.data), target.taskTimeoutMs, false);
    return (await client.call("cleanup", "GET", `${base}/config`, {}, false)).status !== 200;
  } catch {
    return false;
  }
}

/** Polls a task until it stops; records only its final status (poll counts differ by speed). */
async function waitTask(
  client: ConformanceClient,
  step: string,
  node: string,
  upid: string,
  timeoutMs: number,
  record = true,
): Promise<void> {
  const path = `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`;
  const deadline = Date.now() + timeoutMs;
  for (let interval = 100; ; interval = Math.min(interval * 2, 2000)) {
    const status = await client.call(step, "GET", path, {}, false);
    const data = status.data as { status?: string; exitstatus?: string } | null;
    if (status.status === 200 && data?.status === "stopped") {
      if (record) await client.call(step, "GET", path);
      if (data.exitstatus !== "OK") throw new Error(`${step}: task ended ${data.exitstatus}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${step}: task still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Waits (unrecorded) for the guest agent to answer; a template without one just costs the wait. */
async function waitAgent(
  client: ConformanceClient,
  path: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await client.call("", "POST", path, {}, false)).status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function ok(exchange: Exchange): Exchange {
  if (exchange.status !== 200) {
    throw new Error(`${exchange.step}: ${exchange.status} ${exchange.error ?? ""}`.trim());
  }
  return exchange;
}

/** The first VMID of the range no VM or container uses. */
function freeVmid(listing: Exchange, range: ScenarioTarget["range"]): number {
  const used = new Set(
    (Array.isArray(listing.data) ? listing.data : []).map((r) =>
      Number((r as { vmid?: unknown }).vmid),
    ),
  );
  for (let vmid = range.min; vmid <= range.max; vmid++) if (!used.has(vmid)) return vmid;
  throw new Error(`no free VMID in ${range.min}-${range.max}`);
}

const bridgeOf = (config: unknown): string | undefined =>
  /bridge=([^,]+)/.exec(String((config as Record<string, unknown> | null)?.["net0"] ?? ""))?.[1];

/** The template's first disk key that holds a volume (not a CD-ROM), for the resize. */
function diskOf(config: unknown): string | undefined {
  const entries = Object.entries((config as Record<string, unknown> | null) ?? {});
  return entries
    .filter(([key]) => /^(scsi|virtio|sata|ide)\d+$/.test(key))
    .find(([, value]) => !String(value).includes("media=cdrom"))?.[0];
}
