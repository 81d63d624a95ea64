/**
 * The program text `pulumi-proxmox import` prints: the import line, then for each VM the notes on
 * what its inputs leave as it is and a `ProxmoxVm` declaration with `adopt: { vmid }`, in
 * TypeScript or JavaScript, ready to paste into a program.
 */
import type { ImportedVm, SkippedVm } from "../provider/entry";

export type Language = "ts" | "js";

/** A VM to declare and the resource name it is declared under. */
export interface Declared {
  readonly vm: ImportedVm;
  readonly resourceName: string;
}

const WIDTH = 100;

/**
 * The whole snippet: the import line, each declaration, then the VMs passed over. With
 * `provider` (an explicit `Provider`'s name), each declaration takes it as its `provider`
 * option, by the variable its name makes.
 */
export function printProgram(
  declared: readonly Declared[],
  skipped: readonly SkippedVm[],
  language: Language,
  provider?: string,
): string {
  const head =
    language === "ts"
      ? `import { ProxmoxVm } from "pulumi-proxmox";`
      : `const { ProxmoxVm } = require("pulumi-proxmox");`;
  const variables = uniqueNames(declared.map((d) => identifierOf(d.resourceName)));
  const options = provider === undefined ? undefined : identifierOf(provider);
  const blocks = declared.map((d, i) => declaration(d, variables[i] ?? "vm", options));
  if (options !== undefined) {
    blocks.unshift(
      comment(
        `On the cluster of Provider ${JSON.stringify(provider)}: \`${options}\` stands for your ` +
          `\`new Provider(${JSON.stringify(provider)}, …)\`; rename it to your variable.`,
      ).join("\n"),
    );
  }
  const passed = skipped.flatMap((vm) => comment(`Skipped: ${vm.why}`));
  return [head, ...blocks, ...(passed.length > 0 ? [passed.join("\n")] : [])].join("\n\n") + "\n";
}

/** Resource names for the VMs: `name` for one, else each VM's own name, made unique. */
export function resourceNames(vms: readonly ImportedVm[], name?: string): string[] {
  const wanted = vms.map((vm, i) =>
    i === 0 && name !== undefined ? name : (vm.name ?? `vm-${vm.vmid}`),
  );
  return uniqueNames(wanted, "-");
}

/** Not exported: a stack output of the whole resource would print every output of the VM. */
function declaration(d: Declared, variable: string, provider: string | undefined): string {
  const { vm } = d;
  const args = { node: vm.node, adopt: { vmid: vm.vmid }, ...vm.inputs };
  const notes = vm.notes.flatMap((note) => comment(note));
  return [
    `// VM ${vm.vmid}${vm.name === undefined ? "" : ` (${vm.name})`} on ${vm.node}, as it is now.`,
    ...notes,
    `const ${variable} = new ProxmoxVm(${JSON.stringify(d.resourceName)}, ${literal(args, "", true)}${provider === undefined ? "" : `, { provider: ${provider} }`});`,
  ].join("\n");
}

/** A note as `//` lines of at most WIDTH characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = "//";
  for (const word of text.split(" ")) {
    if (line.length + word.length + 1 > WIDTH && line !== "//") {
      lines.push(line);
      line = "//  ";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/**
 * A value as a JavaScript literal: identifiers as bare keys, a value on one line when it fits
 * after the `lead` characters before it (its key) with the comma after it.
 */
export function literal(value: unknown, indent: string, expand = false, lead = 0): string {
  const flat = inline(value);
  const fits = indent.length + lead + flat.length + 1 <= WIDTH && !expand;
  if (fits || value === null || typeof value !== "object") {
    return flat;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => `${inner}${literal(v, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([k, v]) => `${inner}${key(k)}: ${literal(v, inner, false, key(k).length + 2)},`,
  );
  return `{\n${entries.join("\n")}\n${indent}}`;
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length === 0
      ? "{}"
      : `{ ${entries.map(([k, v]) => `${key(k)}: ${inline(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));

/** A name as a JavaScript identifier: `web-1.example` → `web1Example`, `9lives` → `vm9lives`. */
export function identifierOf(name: string): string {
  const words = name.split(/[^A-Za-z0-9_$]+/).filter((w) => w !== "");
  const camel = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join("");
  const id = camel === "" ? "vm" : /^[0-9]/.test(camel) ? `vm${camel}` : camel;
  return RESERVED.has(id) ? `${id}Vm` : id;
}

/** Reserved words a declaration cannot be named. */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await arguments eval"
  ).split(" "),
);

/** The names with a counter added to each repeat: `web`, `web2` (or `web-2` with a separator). */
function uniqueNames(names: readonly string[], separator = ""): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let unique = name;
    for (let n = 2; used.has(unique); n++) unique = `${name}${separator}${n}`;
    used.add(unique);
    return unique;
  });
}
