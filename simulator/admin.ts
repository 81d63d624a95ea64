import type { IncomingMessage, ServerResponse } from "node:http";
import type { Faults, VmDump } from "./faults.js";
import type { Mapping } from "./model/mappings.js";
import { readBody } from "./http/body.js";
import type { RequestLogEntry } from "./server.js";

/** What the admin API can read besides the fault controls. */
export interface AdminTarget {
  readonly faults: Faults;
  readonly requestLog: RequestLogEntry[];
  snapshot(): unknown;
}

type Body = Record<string, unknown>;

function send(res: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

function match(body: Body): { method?: string; path: string; count?: number } {
  if (typeof body["path"] !== "string")
    throw new Error("'path' (a regular expression) is required");
  return {
    path: body["path"],
    ...(typeof body["method"] === "string" ? { method: body["method"] } : {}),
    ...(typeof body["count"] === "number" ? { count: body["count"] } : {}),
  };
}

function taskMatch(body: Body): { type?: string; id?: string; count?: number } {
  return {
    ...(typeof body["type"] === "string" ? { type: body["type"] } : {}),
    ...(body["id"] !== undefined ? { id: String(body["id"]) } : {}),
    ...(typeof body["count"] === "number" ? { count: body["count"] } : {}),
  };
}

/**
 * The admin HTTP API under `/_sim/` (same server, no auth: the simulator only listens on
 * loopback). JSON in, JSON out; see docs/simulator.md for the table of routes.
 */
export function createAdminHandler(target: AdminTarget) {
  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? "GET";
    const raw = await readBody(req);
    let body: Body = {};
    if (raw.length > 0) body = JSON.parse(raw.toString("utf8")) as Body;
    const f = target.faults;
    const vm = /^\/_sim\/vms\/(\d+)(\/.*)?$/.exec(path);
    const node = /^\/_sim\/nodes\/([^/]+)\/(down|up)$/.exec(path);
    const bridges = /^\/_sim\/nodes\/([^/]+)\/bridges$/.exec(path);
    const mapping = /^\/_sim\/mappings\/([^/]+)\/([^/]+)$/.exec(path);
    const snippet = /^\/_sim\/nodes\/([^/]+)\/storage\/([^/]+)\/snippets\/([^/]+)$/.exec(path);
    try {
      const key = `${method} ${vm === null ? path : `/_sim/vms/{vmid}${vm[2] ?? ""}`}`;
      const vmid = Number(vm?.[1]);
      switch (key) {
        case "GET /_sim/state":
          return send(res, 200, target.snapshot());
        case "GET /_sim/requests":
          return send(res, 200, target.requestLog);
        case "DELETE /_sim/requests":
          target.requestLog.length = 0;
          return send(res, 200, { ok: true });
        case "POST /_sim/faults/fail":
          f.failRequests(
            match(body),
            Number(body["status"] ?? 500),
            String(body["message"] ?? "simulated failure"),
          );
          return send(res, 200, { ok: true });
        case "POST /_sim/faults/delay":
          f.delayRequests(match(body), Number(body["ms"] ?? 0));
          return send(res, 200, { ok: true });
        case "POST /_sim/faults/drop":
          f.dropRequests(match(body));
          return send(res, 200, { ok: true });
        case "POST /_sim/faults/lose-answer":
          f.loseAnswers(match(body));
          return send(res, 200, { ok: true });
        case "POST /_sim/faults/clear":
          f.clear();
          return send(res, 200, { ok: true });
        case "POST /_sim/tasks/fail":
          f.failTasks(taskMatch(body), String(body["message"] ?? "simulated task failure"));
          return send(res, 200, { ok: true });
        case "POST /_sim/tasks/warn":
          f.warnTasks(taskMatch(body), Number(body["warnings"] ?? 1));
          return send(res, 200, { ok: true });
        case "PUT /_sim/listing-lag":
          f.setListingLag(Number(body["ms"] ?? 0));
          return send(res, 200, { ok: true });
        case "POST /_sim/vms/{vmid}/stop":
          f.stopVm(vmid);
          return send(res, 200, { ok: true });
        case "PUT /_sim/vms/{vmid}/config":
          f.setConfig(vmid, body as Record<string, string | number | null>);
          return send(res, 200, { ok: true });
        case "POST /_sim/vms/{vmid}/migrate":
          f.migrateVm(vmid, String(body["target"]));
          return send(res, 200, { ok: true });
        case "POST /_sim/vms/{vmid}/ha":
          f.putUnderHa(vmid, body["state"] === "stopped" ? "stopped" : "started");
          return send(res, 200, { ok: true });
        case "PUT /_sim/vms/{vmid}": {
          const dump = body as unknown as VmDump;
          if (dump.vm?.vmid !== vmid) throw new Error(`'vm.vmid' must be ${vmid}, as in the path`);
          f.restoreVm(dump);
          return send(res, 200, { ok: true });
        }
        case "DELETE /_sim/vms/{vmid}":
          f.deleteVm(vmid);
          return send(res, 200, { ok: true });
        case "PUT /_sim/vms/{vmid}/lock":
          f.setLock(vmid, typeof body["lock"] === "string" ? body["lock"] : null);
          return send(res, 200, { ok: true });
        case "DELETE /_sim/vms/{vmid}/lock":
          f.setLock(vmid, null);
          return send(res, 200, { ok: true });
        case "POST /_sim/vms/{vmid}/flock":
          void f.holdFileLock(vmid, Number(body["ms"] ?? 1000)).catch(() => undefined);
          return send(res, 200, { ok: true });
      }
      if (node !== null && method === "POST") {
        if (node[2] === "down")
          f.nodeDown(
            node[1] ?? "",
            body["status"] === 596 ? 596 : 595,
            typeof body["reason"] === "string" ? body["reason"] : undefined,
          );
        else f.nodeUp(node[1] ?? "");
        return send(res, 200, { ok: true });
      }
      if (bridges !== null && method === "PUT") {
        const list = body["bridges"];
        if (!Array.isArray(list) || !list.every((b) => typeof b === "string"))
          throw new Error("'bridges' (a list of bridge names) is required");
        f.setBridges(bridges[1] ?? "", list as string[]);
        return send(res, 200, { ok: true });
      }
      if (mapping !== null && method === "PUT") {
        f.setMapping(mapping[1] ?? "", mapping[2] ?? "", body as unknown as Mapping);
        return send(res, 200, { ok: true });
      }
      if (snippet !== null && method === "PUT") {
        const [, node = "", storage = "", file = ""] = snippet;
        const volid = f.putSnippet(node, storage, file, body["executable"] !== false);
        return send(res, 200, { volid });
      }
      return send(res, 404, { error: `no admin route '${method} ${path}'` });
    } catch (err) {
      return send(res, 400, { error: err instanceof Error ? err.message : String(err) });
    }
  };
}
