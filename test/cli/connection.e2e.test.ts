import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../simulator";
import { engineEnv, pulumi, type EngineEnv } from "../e2e/support/engine";
import { proxmoxStack } from "../e2e/support/proxmox-stack";
import { runBin } from "./support";

const program = `
const { ProxmoxVm } = require("pulumi-proxmox");
new ProxmoxVm("web", { node: "pve1", template: 9000 });
`;

/** The environment without any PROXMOX_VE_* variable: only the stack's config can connect. */
function withoutProxmoxEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith("PROXMOX_VE_")));
}

describe("doctor and sweep connect as the stack's provider does", () => {
  let sim: Simulator;
  let engine: EngineEnv;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    sim = await startSimulator();
    engine = engineEnv();
    env = withoutProxmoxEnv(engine.env);
    // The stack's config holds endpoint, CA and the token (a secret); nothing is deployed.
    dir = await proxmoxStack("cli-connection", program, sim, engine);
  });
  afterAll(async () => {
    engine.cleanup();
    await sim.close();
  });

  it("doctor --stack reads proxmox:endpoint, proxmox:apiToken and proxmox:caCert", async () => {
    const doctor = await runBin(["doctor", "--stack", "dev", "--template", "9000"], dir, env);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toContain(`pulumi-proxmox doctor: ${sim.url} as root@pam!ci`);
    expect(doctor.stdout).toContain("All checks passed.");
    expect(doctor.stdout).not.toContain(sim.apiToken.split("=")[1] ?? "?");
  });

  it("sweep --stack reads the same config", async () => {
    const sweep = await runBin(["sweep", "--cwd", dir, "--stack", "dev"], dir, env);
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain("No orphans.");
  });

  it("doctor and sweep --stack log in with proxmox:username and proxmox:password", async () => {
    const set = async (args: string[]) => {
      const result = await pulumi(["config", ...args], dir, engine.env);
      expect(result.code, result.stderr).toBe(0);
    };
    await set(["rm", "proxmox:apiToken"]);
    await set(["set", "proxmox:username", "root@pam"]);
    await set(["set", "--secret", "proxmox:password", sim.rootPassword]);
    try {
      const doctor = await runBin(["doctor", "--stack", "dev", "--template", "9000"], dir, env);
      expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
      expect(doctor.stdout).toContain(
        `pulumi-proxmox doctor: ${sim.url} as root@pam (stack dev's config)\n`,
      );
      expect(doctor.stdout).toMatch(/ok\s+user root@pam\s+accepted/);
      const sweep = await runBin(["sweep", "--stack", "dev"], dir, env);
      expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
      expect(doctor.stdout + doctor.stderr + sweep.stdout + sweep.stderr).not.toContain(
        sim.rootPassword,
      );
    } finally {
      await set(["rm", "proxmox:username"]);
      await set(["rm", "proxmox:password"]);
      await set(["set", "--secret", "proxmox:apiToken", sim.apiToken]);
    }
  });

  it("without a stack or PROXMOX_VE_ENDPOINT, names every way to give the endpoint", async () => {
    const doctor = await runBin(["doctor", "--template", "9000"], dir, env);
    expect(doctor.code).toBe(1);
    expect(doctor.stderr).toContain(
      "endpoint is required (stack config `proxmox:endpoint`, or PROXMOX_VE_ENDPOINT); " +
        "pass --stack to read a stack's `proxmox:*` config, or the flags --endpoint",
    );
  });

  it("names the stack whose config lacks the setting", async () => {
    const unset = await pulumi(["config", "rm", "proxmox:endpoint"], dir, engine.env);
    expect(unset.code, unset.stderr).toBe(0);
    const sweep = await runBin(["sweep", "--stack", "dev"], dir, env);
    expect(sweep.code).toBe(1);
    expect(sweep.stderr).toContain(
      "endpoint is required (stack config `proxmox:endpoint`, or PROXMOX_VE_ENDPOINT); " +
        "read from stack dev's config",
    );
  });
});
