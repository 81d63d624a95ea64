import * as fs from "node:fs";
import * as path from "node:path";
import type { Simulator } from "../../../simulator";
import { pulumi, writeProgram, type EngineEnv } from "./engine";

/**
 * A CLI program in the consumer workspace, configured for `sim` through stack config:
 * endpoint and CA in plain config, the API token (or the password of `login`) as a secret.
 */
export async function proxmoxStack(
  name: string,
  source: string,
  sim: Simulator,
  engine: EngineEnv,
  login?: PasswordLogin,
): Promise<string> {
  const dir = writeProgram(name, source);
  await configureProxmoxStack(dir, sim, engine, login);
  return dir;
}

/** A user and password to log in with instead of the simulator's API token. */
export interface PasswordLogin {
  readonly username: string;
  readonly password: string;
}

/**
 * Inits stack `dev` in an existing program folder and points it at `sim`: endpoint and CA in
 * plain config, the API token as a secret.
 */
export async function configureProxmoxStack(
  dir: string,
  sim: Simulator,
  engine: EngineEnv,
  login?: PasswordLogin,
): Promise<void> {
  const run = async (args: string[]) => {
    const result = await pulumi(args, dir, engine.env);
    if (result.code !== 0)
      throw new Error(`pulumi ${args[0]} failed: ${result.stderr}${result.stdout}`);
  };
  await run(["stack", "init", "dev"]);
  await run(["config", "set", "proxmox:endpoint", sim.url]);
  if (login === undefined) {
    await run(["config", "set", "--secret", "proxmox:apiToken", sim.apiToken]);
  } else {
    await run(["config", "set", "proxmox:username", login.username]);
    await run(["config", "set", "--secret", "proxmox:password", login.password]);
  }
  const caFile = path.join(dir, "ca.pem");
  fs.writeFileSync(caFile, sim.caCertPem);
  await run(["config", "set", "proxmox:caCert", caFile]);
}

/** VMs on the simulator that are not templates. */
export function guestVms(sim: Simulator): number[] {
  return [...sim.model.vms].filter(([, vm]) => !vm.config["template"]).map(([vmid]) => vmid);
}

/** VMs on the simulator that are templates. */
export function templateVms(sim: Simulator): number[] {
  return [...sim.model.vms].filter(([, vm]) => vm.config["template"]).map(([vmid]) => vmid);
}

/** Downloaded images (`import` content) on pve1's `local`, where the template tests put them. */
export function importedImages(sim: Simulator): string[] {
  return sim.model
    .volumes("pve1", "local")
    .filter((v) => v.content === "import")
    .map((v) => v.volid);
}

/** Seed ISOs left on any node's storages. */
export function seedIsos(sim: Simulator): string[] {
  const found = new Set<string>();
  for (const node of ["pve1", "pve2"]) {
    for (const storage of sim.model.storages) {
      try {
        for (const v of sim.model.volumes(node, storage.storage)) {
          if (v.volid.includes(":iso/pp-")) found.add(v.volid);
        }
      } catch {
        // The storage does not exist on that node.
      }
    }
  }
  return [...found].sort();
}
