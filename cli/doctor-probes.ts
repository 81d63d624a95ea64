/**
 * doctor's Proxmox-side probes other than privileges: the template, the storages on each node,
 * the nodes, and the clock. Each returns checks; none throws for a PVE answer.
 */
import {
  hasCode,
  vmLabel,
  type ConnectionConfig,
  type NodeStorage,
  type ProxmoxApi,
  type VmConfig,
} from "../provider/entry";
import * as http from "node:http";
import * as https from "node:https";

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  /** `token`, `privilege`, `template`, `storage`, `node` or `clock`. */
  readonly area: string;
  /** What was checked, e.g. `VM.Clone on /vms/9000`, `storage local on pve1`. */
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export interface TemplateFacts {
  readonly vmid: number;
  readonly node: string;
  readonly diskStorages: string[];
  readonly bridges: string[];
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Finds the template by VMID or name, and reads its disks' storages and its bridges. */
export async function probeTemplate(
  api: ProxmoxApi,
  template: string,
  checks: DoctorCheck[],
): Promise<TemplateFacts | undefined> {
  const name = `template ${template}`;
  const fail = (detail: string) =>
    void checks.push({ area: "template", name, status: "fail", detail });
  const byId = /^\d+$/.test(template) ? Number(template) : undefined;
  let config: VmConfig;
  let found: { vmid: number; node: string } | undefined;
  try {
    const vms = (await api.clusterVms()).filter((vm) => vm.type === "qemu");
    const matches = vms.filter((vm) =>
      byId === undefined ? vm.name === template : vm.vmid === byId,
    );
    if (matches.length > 1)
      return fail(`${matches.length} VMs are named ${template}: use the VMID`);
    found = matches[0];
    if (found === undefined) {
      return fail("not found on the cluster (or the token lacks VM.Audit on it)");
    }
    config = await api.vmConfig(found.node, found.vmid);
  } catch (error) {
    return fail(`cannot be read: ${message(error)}`);
  }
  if (config.template !== true) {
    return fail(
      `${vmLabel(found)} is not a template (convert it with \`qm template ${found.vmid}\`)`,
    );
  }
  const disks = Object.entries(config).filter(
    ([key, value]) =>
      /^(scsi|virtio|sata|ide|efidisk|tpmstate)\d+$/.test(key) &&
      !String(value).includes("media=cdrom"),
  );
  const diskStorages = [...new Set(disks.map(([, value]) => String(value).split(":")[0] ?? ""))];
  const bridges = Object.entries(config)
    .filter(([key]) => /^net\d+$/.test(key))
    .flatMap(([, value]) => /(?:^|,)bridge=([^,]+)/.exec(String(value))?.[1] ?? []);
  checks.push({
    area: "template",
    name,
    status: "ok",
    detail: `${vmLabel(found)}${config.name ? ` (${config.name})` : ""} is a template`,
  });
  return { vmid: found.vmid, node: found.node, diskStorages, bridges: [...new Set(bridges)] };
}

/** Every node's membership status; target nodes must also answer a proxied call. */
export async function probeNodes(
  api: ProxmoxApi,
  targets: readonly string[],
  checks: DoctorCheck[],
): Promise<Map<string, readonly NodeStorage[]>> {
  const storages = new Map<string, readonly NodeStorage[]>();
  let listed: string[];
  try {
    const nodes = await api.nodes();
    listed = nodes.map((n) => n.node);
    for (const n of nodes) {
      const target = targets.includes(n.node);
      const online = n.status === "online";
      checks.push({
        area: "node",
        name: `node ${n.node}`,
        status: online ? "ok" : target ? "fail" : "warn",
        detail: online ? "online" : `${n.status}${target ? "" : " (not a target node)"}`,
      });
    }
  } catch (error) {
    checks.push({
      area: "node",
      name: "nodes",
      status: "fail",
      detail: `cannot list: ${message(error)}`,
    });
    return storages;
  }
  for (const node of targets) {
    if (!listed.includes(node)) {
      checks.push({
        area: "node",
        name: `node ${node}`,
        status: "fail",
        detail: "not a cluster member",
      });
      continue;
    }
    try {
      storages.set(node, await api.nodeStorages(node));
    } catch (error) {
      const detail = hasCode(error, "UNAVAILABLE")
        ? `does not answer: ${message(error)}`
        : message(error);
      checks.push({ area: "node", name: `node ${node} answers`, status: "fail", detail });
    }
  }
  return storages;
}

/** What a storage of each content type is for, as the check's name says it. */
const STORAGE_ROLE = { images: "disk", iso: "ISO", import: "import" } as const;

/** The storage exists on the node, is enabled and active, and accepts `content`. */
export function checkStorage(
  node: string,
  storages: readonly NodeStorage[],
  storage: string,
  content: keyof typeof STORAGE_ROLE,
  checks: DoctorCheck[],
): NodeStorage | undefined {
  const name = `${STORAGE_ROLE[content]} storage ${storage} on ${node}`;
  const found = storages.find((s) => s.storage === storage);
  const problem =
    found === undefined
      ? "not found on the node (or the token lacks Datastore.Audit on it)"
      : !found.enabled
        ? "disabled"
        : !found.active
          ? "not active"
          : !found.content.includes(content)
            ? `does not accept ${content} (content: ${found.content.join(",") || "none"})`
            : undefined;
  checks.push({
    area: "storage",
    name,
    status: problem === undefined ? "ok" : "fail",
    detail: problem ?? `${found?.type ?? ""}, accepts ${content}${found?.shared ? ", shared" : ""}`,
  });
  return problem === undefined ? found : undefined;
}

/** Skew between the server's `Date` header and this machine: 2 s ok, 30 s warn, beyond fail. */
export async function checkClock(
  connection: ConnectionConfig,
  checks: DoctorCheck[],
  now: () => number = Date.now,
): Promise<void> {
  let serverMs: number | undefined;
  let local: number;
  try {
    const date = await serverDate(connection);
    local = now();
    serverMs = date === undefined ? undefined : Date.parse(date);
  } catch (error) {
    checks.push({
      area: "clock",
      name: "clock skew",
      status: "warn",
      detail: `not measured: ${message(error)}`,
    });
    return;
  }
  if (serverMs === undefined || Number.isNaN(serverMs)) {
    checks.push({
      area: "clock",
      name: "clock skew",
      status: "warn",
      detail: "the server sent no Date header",
    });
    return;
  }
  // The header has whole seconds: a skew under 2 s is noise.
  const skew = Math.round((serverMs - local) / 1000);
  const abs = Math.abs(skew);
  checks.push({
    area: "clock",
    name: "clock skew",
    status: abs <= 2 ? "ok" : abs <= 30 ? "warn" : "fail",
    detail:
      abs <= 2
        ? `${skew} s (server Date header)`
        : `the server is ${abs} s ${skew > 0 ? "ahead" : "behind"}: sync both clocks with NTP (chrony)`,
  });
}

/** The `Date` header of an unauthenticated GET of the web UI's index: no token is sent. */
function serverDate(connection: ConnectionConfig): Promise<string | undefined> {
  const url = new URL("/", connection.origin);
  const get = url.protocol === "https:" ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const request = get(
      url,
      {
        timeout: 10_000,
        ...(url.protocol === "https:"
          ? { ca: connection.caCert, rejectUnauthorized: !connection.insecure }
          : {}),
      },
      (response) => {
        response.resume();
        resolve(response.headers.date);
      },
    );
    request.on("timeout", () => request.destroy(new Error("no answer within 10 s")));
    request.on("error", reject);
  });
}
