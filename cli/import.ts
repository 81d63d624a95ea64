/**
 * `pulumi-proxmox import`: prints the `ProxmoxVm` declaration of an existing VM (or of each VM of
 * a pool, a tag, a node) with `adopt: { vmid }` and the inputs that say what the VM has, so that
 * pasting it and running `pulumi up` adopts the VM without changing it. Only reads: nothing is
 * written to Proxmox.
 */
import { connect, importVm, importVms, type ImportedVm, type SkippedVm } from "../provider/entry";
import { CONNECTION_FLAGS, CONNECTION_HELP, parseFlags, type Io } from "./args";
import { connectionOf } from "./connection";
import { printProgram, resourceNames, type Language } from "./import-print";
import { UsageError, type ExitCode } from "./report";

const HELP = `Usage: pulumi-proxmox import (--vmid N | --all [--pool P | --tag T] [--node N]) [flags]

Prints a ProxmoxVm declaration with adopt: { vmid } for an existing VM, with the inputs that say
what it has: pasted into a program, \`pulumi up\` adopts the VM and changes nothing on it but the
pulumi-proxmox mark in its description. Only reads from Proxmox. Exit 0, or 1 for a VMID that
does not exist, a template, or a VM a stack manages already (its mark).

  --vmid N                the VM to declare
  --all                   every VM (templates and VMs a stack manages are skipped, with a comment)
  --pool P                with --all: the VMs of resource pool P
  --tag T                 with --all: the VMs tagged T
  --node N                with --all: the VMs on node N
  --name NAME             the resource name (default: the VM's name); with --vmid only
  --language ts|js        TypeScript (default) or JavaScript
  --stack NAME            connect as this stack's provider does (its proxmox:* config)
  --provider NAME         with --stack: the VMs of the cluster of the stack's explicit Provider
                          NAME; each declaration takes { provider } (your Provider's variable)
  --cwd DIR               the --stack's program directory (default: the current directory)
  --backend URL           the --stack's state backend

${CONNECTION_HELP}`;

export async function importCommand(argv: readonly string[], io: Io): Promise<ExitCode> {
  const { values } = parseFlags(argv, {
    ...CONNECTION_FLAGS,
    vmid: { type: "string" },
    all: { type: "boolean" },
    pool: { type: "string" },
    tag: { type: "string" },
    node: { type: "string" },
    name: { type: "string" },
    language: { type: "string" },
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
  const language = languageFlag(values.language);
  const all = values.all === true;
  if (all === (values.vmid !== undefined)) {
    throw new UsageError("pass --vmid N for one VM, or --all (with --pool, --tag or --node)");
  }
  if (!all && [values.pool, values.tag, values.node].some((v) => v !== undefined)) {
    throw new UsageError("--pool, --tag and --node choose VMs for --all: with --vmid, drop them");
  }
  if (values.pool !== undefined && values.tag !== undefined) {
    throw new UsageError("pass --pool or --tag, not both");
  }
  if (all && values.name !== undefined) {
    throw new UsageError("--name names one VM: with --all, each VM is named after its own name");
  }
  if (values.provider !== undefined && values.stack === undefined) {
    throw new UsageError(
      `--provider ${values.provider} needs --stack: the stack whose state holds it`,
    );
  }
  const stacks =
    values.stack === undefined
      ? []
      : [{ stack: values.stack, cwd: values.cwd, backend: values.backend }];
  const { connection } = await connectionOf(values, stacks, process.env, values.provider);
  const { ctx } = await connect(connection, {
    progress: () => undefined,
    warn: (message) => io.stderr(`warning: ${message}\n`),
  });
  let vms: ImportedVm[];
  let skipped: SkippedVm[] = [];
  if (all) {
    ({ vms, skipped } = await importVms(ctx, {
      pool: values.pool,
      tag: values.tag,
      node: values.node,
    }));
  } else {
    vms = [await importVm(ctx, vmidFlag(values.vmid ?? ""))];
  }
  const names = resourceNames(vms, values.name);
  io.stdout(
    printProgram(
      vms.map((vm, i) => ({ vm, resourceName: names[i] ?? `vm-${vm.vmid}` })),
      skipped,
      language,
      values.provider,
    ),
  );
  if (all && vms.length === 0) io.stderr("pulumi-proxmox import: no VM to declare.\n");
  return 0;
}

function languageFlag(value: string | undefined): Language {
  if (value === undefined || value === "ts" || value === "typescript") return "ts";
  if (value === "js" || value === "javascript") return "js";
  throw new UsageError(`--language is ts or js, got ${value}`);
}

function vmidFlag(value: string): number {
  const vmid = Number(value);
  if (!/^\d+$/.test(value) || vmid < 100) {
    throw new UsageError(`--vmid must be a VMID (a whole number from 100), got ${value}`);
  }
  return vmid;
}
