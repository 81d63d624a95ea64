import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandReport } from "../../cli";
import { pulumi } from "../e2e/support/engine";
import { guestVms, seedIsos } from "../e2e/support/proxmox-stack";
import { readJson, runBin } from "./support";
import { expectExitCode, expectSuccess } from "../support/command-result";
import { useStack } from "../e2e/support/use-stack";

const PASSWORD = "$6$rounds=4096$pp-salt$hashed-password-plaintext-marker";
const FILE_SECRET = "write-files-content-plaintext-marker";
const USER_DATA_SECRET = "user-data-token-plaintext-marker";
const CHANGED_SECRET = "changed-user-data-token-marker";

const program = (token: string) => `
const { ProxmoxVm } = require("pulumi-proxmox");
new ProxmoxVm("web", {
  node: "pve1",
  template: 9000,
  cloudInit: {
    hostname: "web-visible",
    users: [{ name: "ops", hashedPassword: ${JSON.stringify(PASSWORD)} }],
    writeFiles: [{ path: "/etc/app.token", content: ${JSON.stringify(FILE_SECRET)} }],
  },
});
new ProxmoxVm("raw", {
  node: "pve1",
  template: 9000,
  cloudInit: {
    hostname: "raw-visible",
    userData: ${JSON.stringify(`#cloud-config\nbootcmd:\n  - echo ${token}\n`)},
  },
});
`;

describe("cloud-init secrets through the real engine", () => {
  const { sim, engine, dir, up } = useStack({
    name: "cli-secrets",
    program: program(USER_DATA_SECRET),
  });
  beforeAll(() => up());

  it("keeps the hashed password and the user-data out of the state, inputs and outputs", async () => {
    const exported = await pulumi(["stack", "export"], dir, engine.env);
    expectSuccess(exported);
    expect(exported.stdout).toContain("web-visible");
    for (const secret of [PASSWORD, FILE_SECRET, USER_DATA_SECRET]) {
      expect(exported.stdout).not.toContain(secret);
    }
    type Props = { cloudInit: Record<string, unknown> };
    const vms = (
      JSON.parse(exported.stdout) as {
        deployment: { resources: { type: string; inputs: Props; outputs: Props }[] };
      }
    ).deployment.resources.filter((r) => r.type.endsWith(":ProxmoxVm"));
    expect(vms).toHaveLength(2);
    const secretSig = "4dabf18193072939515e22adb298388d";
    for (const vm of vms) {
      for (const props of [vm.inputs, vm.outputs]) {
        expect(props.cloudInit["hostname"]).toMatch(/-visible$/);
        for (const key of ["users", "writeFiles", "userData"].filter((k) => k in props.cloudInit)) {
          expect(props.cloudInit[key]).toHaveProperty(secretSig);
        }
      }
    }
    // The two VMs are created in parallel: the export lists them in the order they finished.
    const keys = vms.map((vm) => Object.keys(vm.outputs.cloudInit).sort().join(","));
    expect(keys.sort()).toEqual(["hostname,userData", "hostname,users,writeFiles"]);
  });

  it("shows no plaintext in preview --diff after the user-data changes", async () => {
    fs.writeFileSync(path.join(dir, "index.js"), program(CHANGED_SECRET));
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expectSuccess(preview);
    expect(preview.stdout).toContain("[secret]");
    for (const text of [PASSWORD, FILE_SECRET, USER_DATA_SECRET, CHANGED_SECRET]) {
      expect(preview.stdout + preview.stderr).not.toContain(text);
    }
  });

  it("reports the changed secret as a secret value that changed, never its value, in drift's stdout and JSON", async () => {
    const file = path.join(dir, "drift.json");
    const drift = await runBin(["drift", "--stack", "dev", "--report", file], dir, engine.env);
    expectExitCode(drift, 2);
    const json = readJson<CommandReport>(file);
    const text = fs.readFileSync(file, "utf8") + drift.stdout + drift.stderr;
    for (const secret of [PASSWORD, FILE_SECRET, USER_DATA_SECRET, CHANGED_SECRET]) {
      expect(text).not.toContain(secret);
    }
    expect(json.resources.map((r) => [r.name, r.op])).toEqual([["raw", "update"]]);
    const cloudInit = json.resources[0]?.properties.find((p) => p.property === "cloudInit");
    expect(cloudInit?.desired).toEqual({ hostname: "raw-visible", userData: "[secret]" });
    expect(cloudInit?.secretChanged).toBe(true);
    expect(drift.stdout).toContain("cloudInit: a secret value changed (program; not shown)");
  });

  it("destroys the VMs and their seeds", async () => {
    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(guestVms(sim)).toEqual([]);
    expect(seedIsos(sim)).toEqual([]);
  });
});
