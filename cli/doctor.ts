/**
 * `pulumi-proxmox doctor`: a preflight against a real endpoint. Checks the token, every privilege
 * the provider's operations need on the paths PVE checks them, the template, the disk and ISO
 * storages on each target node, the nodes, and the clock; prints a table and the minimal role.
 * Read-only: it creates nothing on the cluster.
 */
import {
  connect,
  IMPORT_MIN_RELEASE,
  TEMPLATE_STORAGE_DEFAULTS,
  hasCode,
  importsDiskImages,
  loginName,
  type ConnectionConfig,
  type Permissions,
  type ProxmoxApi,
} from "../provider/entry";
import {
  requirements,
  roleCommands,
  satisfied,
  type Requirement,
  type ResourceMappingUse,
} from "./doctor-privileges";
import {
  checkClock,
  checkStorage,
  probeNodes,
  probeTemplate,
  type DoctorCheck,
} from "./doctor-probes";
import type { ExitCode } from "./report";

export type { DoctorCheck } from "./doctor-probes";

export interface DoctorOptions {
  readonly connection: ConnectionConfig;
  /** The template to clone: VMID or name; optional when `importStorage` is given. */
  readonly template?: string | undefined;
  /**
   * The import storage of a CloudImageTemplate the program makes on the target nodes: doctor
   * then checks what a template needs (release, import and disk storages, privileges).
   */
  readonly importStorage?: string | undefined;
  /** Nodes VMs will be placed on; default: the template's node. */
  readonly nodes?: readonly string[] | undefined;
  /** Disk storage for the clones; default: the template's disk storages. */
  readonly storage?: string | undefined;
  /** Storage for the seed ISOs; default `local`. */
  readonly isoStorage?: string | undefined;
  /** Bridges the VMs use; default `vmbr0` plus the template's. */
  readonly bridges?: readonly string[] | undefined;
  /** Resource pools the VMs are put in (`pool`). */
  readonly pools?: readonly string[] | undefined;
  /** Resource mappings the VMs use (`hostPci`, `usb`, `virtiofs`). */
  readonly mappings?: readonly ResourceMappingUse[] | undefined;
  /** The seam to use instead of HTTP (tests). */
  readonly api?: ProxmoxApi | undefined;
}

export interface DoctorReport {
  readonly endpoint: string;
  /** The API token checked; absent for a password login. */
  readonly tokenId?: string | undefined;
  /** The user of a password login; absent for a token. */
  readonly username?: string | undefined;
  /** `8.4.1`, when the token was accepted. */
  readonly pveVersion?: string | undefined;
  readonly checks: readonly DoctorCheck[];
  /** The `pveum` lines that create the minimal role and grant it on every path it needs. */
  readonly role: readonly string[];
  /** The lines of {@link role} for what is missing (all of them when permissions are unreadable): what the table prints. */
  readonly toGrant: readonly string[];
  /** 0 when no check failed (warnings allowed), else 1. */
  readonly exitCode: ExitCode;
  /** The CLI's doctor: where the settings were read (`provider dc2 of stack dev`, `stack dev's config`). */
  readonly source?: string | undefined;
}

/** Runs every check; resolves with the report (never rejects for a PVE answer). */
export async function doctor(options: DoctorOptions): Promise<DoctorReport> {
  const { connection } = options;
  const { login } = connection;
  const api =
    options.api ??
    (
      await connect(connection, {
        timeoutMs: 30_000,
        retry: false,
        progress: () => undefined,
        warn: () => undefined,
      })
    ).api;
  const checks: DoctorCheck[] = [];
  const done = (
    pveVersion?: string,
    role: string[] = [],
    toGrant: string[] = [],
  ): DoctorReport => ({
    endpoint: connection.origin,
    ...(login.kind === "token" ? { tokenId: login.tokenId } : { username: login.username }),
    ...(pveVersion === undefined ? {} : { pveVersion }),
    checks,
    role,
    toGrant,
    exitCode: checks.some((c) => c.status === "fail") ? 1 : 0,
  });

  let version: { version: string; release: string };
  try {
    version = await api.version();
    checks.push({
      area: "login",
      name: loginName(login),
      status: "ok",
      detail: `accepted; PVE ${version.version}`,
    });
  } catch (error) {
    const what =
      login.kind === "token"
        ? "check the token id and secret, that the token has not expired and that its user is enabled"
        : "check the username and password, that the user is enabled and has no second factor";
    const detail = hasCode(error, "AUTH")
      ? `rejected (401): ${what} — ${(error as Error).message}`
      : `cannot reach the API: ${(error as Error).message}`;
    checks.push({ area: "login", name: loginName(login), status: "fail", detail });
    return done();
  }
  const pveMajor = Number.parseInt(version.release, 10) || 8;

  const cloudImage =
    options.importStorage === undefined
      ? undefined
      : {
          importStorage: options.importStorage,
          storage: options.storage ?? TEMPLATE_STORAGE_DEFAULTS.storage,
        };
  if (cloudImage !== undefined) checkImportRelease(version.version, checks);
  const template =
    options.template === undefined ? undefined : await probeTemplate(api, options.template, checks);
  const nodes = options.nodes?.length ? [...options.nodes] : template ? [template.node] : [];
  if (nodes.length === 0) {
    checks.push({
      area: "node",
      name: "target node",
      status: "fail",
      detail: "unknown: pass --node",
    });
  }
  const storagesByNode = await probeNodes(api, nodes, checks);
  const isoStorage = options.isoStorage ?? "local";
  const diskStorages = options.storage
    ? [options.storage]
    : (template?.diskStorages ?? (cloudImage ? [cloudImage.storage] : []));
  for (const [node, storages] of storagesByNode) {
    for (const storage of diskStorages) checkStorage(node, storages, storage, "images", checks);
    checkStorage(node, storages, isoStorage, "iso", checks);
    if (cloudImage !== undefined) {
      checkStorage(node, storages, cloudImage.importStorage, "import", checks);
    }
  }
  if (template && nodes.some((node) => node !== template.node) && diskStorages.length > 0) {
    // A clone onto another node needs every template volume on shared storage.
    const shared = storagesByNode.get(nodes.find((n) => n !== template.node) ?? "") ?? [];
    const local = template.diskStorages.filter(
      (s) => shared.find((x) => x.storage === s)?.shared !== true,
    );
    if (local.length > 0) {
      checks.push({
        area: "template",
        name: `clone from ${template.node} to other nodes`,
        status: "fail",
        detail: `template disks on non-shared storage ${local.join(", ")}: PVE can only clone across nodes from shared storage`,
      });
    }
  }

  const byVmid = options.template !== undefined && /^\d+$/.test(options.template);
  const needs = requirements({
    templateVmid: template?.vmid ?? (byVmid ? Number(options.template) : undefined),
    diskStorages,
    isoStorage,
    bridges: [...new Set([...(options.bridges ?? ["vmbr0"]), ...(template?.bridges ?? [])])],
    nodes: [...new Set([...nodes, ...(template ? [template.node] : [])])],
    pools: options.pools,
    mappings: options.mappings,
    pveMajor,
    cloudImage,
  });
  // Unreadable permissions: every requirement counts as missing.
  let missing: readonly Requirement[] = needs;
  let permissions: Permissions | undefined;
  try {
    permissions = await api.permissions();
  } catch (error) {
    checks.push({
      area: "privilege",
      name: "permissions",
      status: "fail",
      detail: `cannot read: ${(error as Error).message}`,
    });
  }
  if (permissions !== undefined) {
    const have = permissions;
    missing = needs.filter((need) => !satisfied(have, need));
    for (const need of needs) {
      const ok = !missing.includes(need);
      checks.push({
        area: "privilege",
        name: `${need.privilege} on ${need.path}`,
        status: ok ? "ok" : "fail",
        detail: ok ? need.why : `missing: needed to ${need.why}${orElse(need)}`,
      });
    }
  }
  await checkClock(connection, checks);
  return done(version.version, roleCommands(needs, login), roleCommands(needs, login, missing));
}

/** How a requirement with a broader alternative says so: ` (or Sys.Audit + Sys.Modify on /)`. */
function orElse(need: Requirement): string {
  const alternative = need.alternative;
  return alternative === undefined
    ? ""
    : ` (or ${alternative.privileges.join(" + ")} on ${alternative.path})`;
}

/** A CloudImageTemplate imports qcow2/raw/vmdk over the API only from PVE 8.4 on. */
function checkImportRelease(version: string, checks: DoctorCheck[]): void {
  const min = `${IMPORT_MIN_RELEASE.major}.${IMPORT_MIN_RELEASE.minor}`;
  const ok = importsDiskImages(version);
  checks.push({
    area: "template",
    name: "cloud-image import",
    status: ok ? "ok" : "fail",
    detail: ok
      ? `PVE ${version} imports qcow2, raw and vmdk images`
      : `PVE ${version} cannot import a disk image over the API: CloudImageTemplate needs PVE ${min} or later`,
  });
}
