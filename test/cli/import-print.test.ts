import { describe, expect, it } from "vitest";
import { identifierOf, printProgram, resourceNames } from "../../cli/import-print";
import type { ImportedVm } from "../../provider/entry";

const legacy: ImportedVm = {
  vmid: 4321,
  node: "pve1",
  name: "legacy-web",
  inputs: {
    memory: 3072,
    cpu: { type: "host", sockets: 2, cores: 2 },
    disks: [
      { interface: "scsi0", storage: "local-lvm", sizeGiB: 4, discard: true },
      { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },
    ],
    tags: ["prod", "web"],
    description: 'Legacy web server\nsays "hi"',
  },
  notes: ["Kept as they are, as no input says them: ide2, ostype."],
};

/** Runs a JavaScript snippet with a `require` that records each `new ProxmoxVm`. */
function evaluate(js: string): { name: string; args: unknown }[] {
  const made: { name: string; args: unknown }[] = [];
  // A constructor function, as `new ProxmoxVm(…)` calls it.
  function ProxmoxVm(name: string, args: unknown) {
    made.push({ name, args });
  }
  const require = (id: string) => {
    expect(id).toBe("pulumi-proxmox");
    return { ProxmoxVm };
  };
  new Function("require", js)(require);
  return made;
}

describe("printProgram", () => {
  it("prints a TypeScript declaration with the import line at the top", () => {
    const text = printProgram([{ vm: legacy, resourceName: "legacy-web" }], [], "ts");
    expect(text).toBe(
      [
        'import { ProxmoxVm } from "pulumi-proxmox";',
        "",
        "// VM 4321 (legacy-web) on pve1, as it is now.",
        "// Kept as they are, as no input says them: ide2, ostype.",
        'const legacyWeb = new ProxmoxVm("legacy-web", {',
        '  node: "pve1",',
        "  adopt: { vmid: 4321 },",
        "  memory: 3072,",
        '  cpu: { type: "host", sockets: 2, cores: 2 },',
        "  disks: [",
        '    { interface: "scsi0", storage: "local-lvm", sizeGiB: 4, discard: true },',
        '    { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },',
        "  ],",
        '  tags: ["prod", "web"],',
        '  description: "Legacy web server\\nsays \\"hi\\"",',
        "});",
        "",
      ].join("\n"),
    );
  });

  it("prints JavaScript that makes the VM's inputs exactly", () => {
    const text = printProgram([{ vm: legacy, resourceName: "legacy-web" }], [], "js");
    expect(text.split("\n")[0]).toBe('const { ProxmoxVm } = require("pulumi-proxmox");');
    expect(evaluate(text)).toEqual([
      { name: "legacy-web", args: { node: "pve1", adopt: { vmid: 4321 }, ...legacy.inputs } },
    ]);
  });

  it("names each VM uniquely, and says which VMs it skipped and why", () => {
    const twin = { ...legacy, vmid: 4322 };
    const nameless = { ...legacy, vmid: 4323, name: undefined };
    const names = resourceNames([legacy, twin, nameless]);
    expect(names).toEqual(["legacy-web", "legacy-web-2", "vm-4323"]);
    const text = printProgram(
      [legacy, twin, nameless].map((vm, i) => ({ vm, resourceName: names[i] ?? "" })),
      [{ vmid: 9000, node: "pve1", why: "VM 9000 on pve1 is a template." }],
      "js",
    );
    expect(evaluate(text).map((vm) => vm.name)).toEqual(names);
    expect(text).toMatch(/^const legacyWeb2 = new ProxmoxVm\("legacy-web-2"/m);
    expect(text).toMatch(/^const vm4323 = new ProxmoxVm\("vm-4323"/m);
    expect(text.trimEnd().split("\n").at(-1)).toBe("// Skipped: VM 9000 on pve1 is a template.");
  });

  it("gives each declaration the explicit Provider it was read through", () => {
    const text = printProgram([{ vm: legacy, resourceName: "legacy-web" }], [], "js", "dc-2");
    expect(text).toMatch(
      /^\/\/ On the cluster of Provider "dc-2": `dc2` stands for your `new Provider\("dc-2", …\)`;/m,
    );
    expect(text).toMatch(/^\}, \{ provider: dc2 \}\);$/m);
    const made: unknown[] = [];
    new Function("require", "dc2", text)(
      () => ({
        ProxmoxVm: function (...args: unknown[]) {
          made.push(args[2]);
        },
      }),
      "the dc-2 provider",
    );
    expect(made).toEqual([{ provider: "the dc-2 provider" }]);
  });

  it("prints a short declaration one input a line all the same", () => {
    const small = { vmid: 4322, node: "pve1", inputs: { memory: 512 }, notes: [] };
    expect(printProgram([{ vm: small, resourceName: "vm-4322" }], [], "ts")).toContain(
      'const vm4322 = new ProxmoxVm("vm-4322", {\n  node: "pve1",\n  adopt: { vmid: 4322 },\n  memory: 512,\n});',
    );
  });

  it("keeps a list entry on one line while it fits in 100 characters, and breaks it after", () => {
    const disk = { interface: "scsi0", storage: "local-lvm", sizeGiB: 8, iothread: true };
    const wide = { ...disk, discard: true, ssd: true, backup: false, replicate: false };
    const vm = { vmid: 4322, node: "pve1", inputs: { disks: [disk, wide] }, notes: [] };
    const lines = printProgram([{ vm, resourceName: "vm-4322" }], [], "ts").split("\n");
    expect(lines).toContain(
      '    { interface: "scsi0", storage: "local-lvm", sizeGiB: 8, iothread: true },',
    );
    expect(lines).toContain("      replicate: false,");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(100);
  });

  it("takes --name for the VM", () => {
    expect(resourceNames([legacy], "web")).toEqual(["web"]);
  });

  it("wraps a long note over comment lines", () => {
    const long = { ...legacy, notes: [`Kept as they are: ${"key, ".repeat(30)}last.`] };
    const lines = printProgram([{ vm: long, resourceName: "x" }], [], "ts").split("\n");
    const comments = lines.filter((line) => line.startsWith("//"));
    expect(comments.length).toBeGreaterThan(2);
    expect(Math.max(...comments.map((line) => line.length))).toBeLessThanOrEqual(100);
  });
});

describe("identifierOf", () => {
  it.each([
    ["web-1.example", "web1Example"],
    ["9lives", "vm9lives"],
    ["class", "classVm"],
    ["---", "vm"],
  ])("makes %s the identifier %s", (name, identifier) => {
    expect(identifierOf(name)).toBe(identifier);
  });
});
