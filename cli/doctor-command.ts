/**
 * `pulumi-proxmox doctor` on the command line: its flags, the connection they and the --stack's
 * config describe, and the table it prints.
 */
import { TEMPLATE_STORAGE_DEFAULTS } from "../provider/entry";
import { CONNECTION_FLAGS, CONNECTION_HELP, parseFlags, type Io } from "./args";
import { connectionFlags, connectionOf } from "./connection";
import { doctor, type DoctorReport } from "./doctor";
import type { ResourceMappingUse } from "./doctor-privileges";
import { UsageError, writeReport, type ExitCode } from "./report";

/** The table and the closing lines. */
function formatDoctor(report: DoctorReport): string {
  const from = report.source === undefined ? "" : ` (${report.source})`;
  const width = Math.max(5, ...report.checks.map((c) => c.name.length));
  const row = (status: string, name: string, detail: string) =>
    `${status.padEnd(6)}  ${name.padEnd(width)}  ${detail}`;
  const lines = [
    `pulumi-proxmox doctor: ${report.endpoint} as ${report.tokenId ?? report.username ?? "?"}${from}`,
    "",
    row("STATUS", "CHECK", "DETAIL"),
    ...report.checks.map((c) => row(c.status === "fail" ? "FAIL" : c.status, c.name, c.detail)),
  ];
  if (report.toGrant.length > 0) {
    lines.push(
      "",
      "The minimal role, and where to grant it for what is missing (as root on a PVE node):",
      ...report.toGrant.map((l) => `  ${l}`),
    );
  }
  const failed = report.checks.filter((c) => c.status === "fail").length;
  const warned = report.checks.filter((c) => c.status === "warn").length;
  lines.push(
    "",
    failed === 0
      ? `All checks passed${warned ? ` (${warned} warning(s))` : ""}.`
      : `${failed} check(s) failed.`,
  );
  return `${lines.join("\n")}\n`;
}

const HELP = `Usage: pulumi-proxmox doctor (--template VMID|NAME | --import-storage ID --node NODE) [flags]

Checks the endpoint, the login (token or password), every privilege the provider needs, the template, the storages,
the nodes and the clock. Exit 0 when nothing failed, 1 otherwise.

  --template VMID|NAME    the template VMs are cloned from
  --import-storage ID     the program makes a CloudImageTemplate downloading into this storage:
                          also check the release, the import storage and the privileges it needs
  --node NODE             a node VMs are placed on (repeatable; default: the template's)
  --storage ID            disk storage for the clones and a CloudImageTemplate's disk (default:
                          the template's, or ${TEMPLATE_STORAGE_DEFAULTS.storage} for a CloudImageTemplate)
  --iso-storage ID        storage for the seed ISOs (default: local)
  --bridge NAME           a bridge the VMs use (repeatable; default: vmbr0)
  --pool NAME             a resource pool the VMs are put in (repeatable)
  --mapping TYPE:ID       a resource mapping the VMs use: pci:gpu0 (hostPci), usb:key (usb),
                          dir:share (virtiofs) (repeatable)
  --report FILE           also write the JSON report there
  --stack NAME            connect as this stack's provider does (its proxmox:* config)
  --provider NAME         with --stack: connect as the stack's explicit Provider NAME does (its
                          settings as the last \`pulumi up\` recorded them); default: the stack config
  --cwd DIR               the --stack's program directory (default: the current directory)
  --backend URL           the --stack's state backend

${CONNECTION_HELP}`;

/** `--mapping pci:gpu0`: the type and id of a resource mapping the VMs use. */
function mappingUse(flag: string): ResourceMappingUse {
  const match = /^(pci|usb|dir):([A-Za-z][\w-]+)$/.exec(flag);
  if (match === null)
    throw new UsageError(
      `--mapping ${flag}: expected <type>:<id> with a type of pci, usb or dir, e.g. --mapping pci:gpu0`,
    );
  return { type: match[1] as ResourceMappingUse["type"], id: match[2] ?? "" };
}

export async function doctorCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values } = parseFlags(argv, {
    ...CONNECTION_FLAGS,
    template: { type: "string" },
    "import-storage": { type: "string" },
    node: { type: "string", multiple: true },
    storage: { type: "string" },
    "iso-storage": { type: "string" },
    bridge: { type: "string", multiple: true },
    pool: { type: "string", multiple: true },
    mapping: { type: "string", multiple: true },
    report: { type: "string" },
    stack: { type: "string" },
    provider: { type: "string" },
    cwd: { type: "string" },
    backend: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  const stacks =
    values.stack === undefined
      ? []
      : [{ stack: values.stack, cwd: values.cwd, backend: values.backend }];
  if (values.template === undefined && values["import-storage"] === undefined) {
    throw new UsageError(
      "--template is required (the template VMs are cloned from), or --import-storage when " +
        "the program makes the template with CloudImageTemplate",
    );
  }
  if (values.provider !== undefined && values.stack === undefined) {
    throw new UsageError(
      `--provider ${values.provider} needs --stack: the stack whose state holds it`,
    );
  }
  const { connection, source } = await connectionOf(
    connectionFlags(values),
    stacks,
    process.env,
    values.provider,
  );
  const checked = await doctor({
    connection,
    // The template exists already, or the program makes it from a cloud image.
    template: values.template,
    importStorage: values["import-storage"],
    nodes: values.node,
    storage: values.storage,
    isoStorage: values["iso-storage"],
    bridges: values.bridge,
    pools: values.pool,
    mappings: (values.mapping ?? []).map(mappingUse),
  });
  const report = { ...checked, source };
  io.stdout(formatDoctor(report));
  if (values.report !== undefined) writeReport(values.report, report);
  return report.exitCode;
}
