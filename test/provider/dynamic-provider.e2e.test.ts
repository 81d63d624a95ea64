import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { checkVm } from "../../provider/vm/operations/check";
import { createVm } from "../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../provider/vm/steps/resolved-inputs";
import type { VmState } from "../../provider/vm/state/vm-state";
import { workspaceDir } from "../e2e/support/paths";
import { simulatorContext } from "../support/test-context";

/**
 * Run in a fresh node in the e2e workspace, where `pulumi-proxmox` is installed from its
 * tarball: requires the provider by name as Pulumi's host does, makes the calls, and prints
 * their answers and every module the process loaded on the way (the package's own as
 * `provider/...`, others by package name) as its last stdout line, after the provider's progress.
 */
const PROBE = `
const provider = require("pulumi-proxmox/dynamic-provider");
const calls = JSON.parse(process.env.PROBE_CALLS);
(async () => {
  await provider.configure({ config: { get: (key) => JSON.parse(process.env.PROBE_CONFIG)[key] } });
  const answers = [];
  for (const [method, ...args] of calls) answers.push(await provider[method](...args));
  const loaded = new Set();
  for (const file of Object.keys(require.cache)) {
    const own = /\\/pulumi-proxmox\\/dist\\/(.*)\\.js$/.exec(file);
    const dependency = /\\/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*\\/node_modules\\/)/.exec(file);
    if (own) loaded.add(own[1]);
    else if (dependency) loaded.add(dependency[1]);
  }
  process.stdout.write("\\n" + JSON.stringify({ answers, loaded: [...loaded] }));
})();
`;

/** What only create, update and delete need: the seed writer, its YAML, the template glue. */
const WRITE_PATH = [
  "yaml",
  "provider/vm/seed/build-seed",
  "provider/vm/seed/iso9660",
  "provider/vm/seed/nocloud",
  "provider/vm/operations/create",
  "provider/vm/operations/update",
  "provider/vm/operations/delete",
  "provider/vm/steps/seed-step",
];
const notOnReadPaths = (loaded: string[]) =>
  loaded.filter(
    (m) =>
      WRITE_PATH.includes(m) || m.startsWith("provider/template") || m.startsWith("simulator/"),
  );

describe("the dynamic provider process", () => {
  let sim: Simulator;
  let vm: VmState;
  let inputs: ResolvedInputs;
  let config: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator();
    config = {
      "proxmox:endpoint": sim.url,
      "proxmox:apiToken": sim.apiToken,
      "proxmox:caCert": sim.caCertPem,
    };
    const declared = {
      identity: { project: "probe", stack: "test", name: "vm" },
      node: "pve1",
      template: 9000,
      cloudInit: { packages: ["htop"] },
    };
    inputs = checkVm({}, declared).inputs as ResolvedInputs;
    vm = await createVm({ ...simulatorContext(sim), progress: () => undefined }, inputs);
  });
  afterAll(() => sim.close());

  const probe = async (calls: unknown[][]) => {
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", PROBE], {
      cwd: workspaceDir,
      env: {
        ...process.env,
        PROBE_CALLS: JSON.stringify(calls),
        PROBE_CONFIG: JSON.stringify(config),
      },
    });
    return JSON.parse(stdout.split("\n").pop() ?? "") as {
      answers: Record<string, unknown>[];
      loaded: string[];
    };
  };

  it("refreshes a VM without loading the seed writer, YAML, the template glue or the simulator", async () => {
    const { answers, loaded } = await probe([["read", String(vm.vmid), vm]]);

    expect(answers[0]).toMatchObject({ id: String(vm.vmid), props: { vmid: vm.vmid } });
    expect(loaded).toEqual(expect.arrayContaining(["provider/vm/operations/read", "undici"]));
    expect(notOnReadPaths(loaded)).toEqual([]);
  });

  it("previews a change (check, diff) without loading the connection or the write path", async () => {
    const news = { ...inputs, cores: 4 };
    const { answers, loaded } = await probe([
      ["check", vm, news],
      ["diff", String(vm.vmid), vm, news],
    ]);

    expect(answers[0]).toMatchObject({ inputs: { cores: 4 } });
    expect(answers[1]).toMatchObject({ changes: true });
    expect(loaded).toContain("zod");
    expect(loaded).not.toContain("undici");
    expect(notOnReadPaths(loaded)).toEqual([]);
  });

  it("loads the write path for a create, which the two probes above rely on to see it", async () => {
    const { answers, loaded } = await probe([
      ["create", { ...inputs, identity: { project: "probe", stack: "test", name: "second" } }],
    ]);

    expect(answers[0]).toMatchObject({ id: expect.stringMatching(/^\d+$/) });
    expect(loaded).toEqual(expect.arrayContaining(["provider/vm/operations/create"]));
    expect(notOnReadPaths(loaded).length).toBeGreaterThan(0);
  });
});
