/**
 * Reaching the Pulumi engine through the automation API. `@pulumi/pulumi` is a peer dependency:
 * the module is loaded from the user's project (the program directory) so that the CLI drives the
 * same SDK copy the program uses, and only falls back to the copy next to this package.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import { UsageError } from "./report";

export type AutomationModule = typeof Automation;
export type PulumiStack = Automation.Stack;
export type EngineEvent = Automation.EngineEvent;
export type PulumiFn = Automation.PulumiFn;

/** Which stack to work on, and how to reach its backend and program. */
export interface StackSelection {
  /** The stack, as `pulumi stack select` takes it: `dev` or `org/project/dev`. */
  readonly stack: string;
  /** The program directory (holds `Pulumi.yaml`); default: the current directory. */
  readonly cwd?: string | undefined;
  /** An inline program instead of a directory (function API only); needs `projectName`. */
  readonly program?: PulumiFn | undefined;
  readonly projectName?: string | undefined;
  /** Backend URL (`file://…`, `s3://…`, `https://api.pulumi.com`); default: the environment's. */
  readonly backend?: string | undefined;
  /** Extra environment for the engine, e.g. `PULUMI_CONFIG_PASSPHRASE`. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** The automation module to use; default: loaded from `cwd`'s project. */
  readonly automation?: AutomationModule | undefined;
}

/** Loads `@pulumi/pulumi/automation` as the project in `cwd` resolves it. */
function loadAutomation(cwd: string): AutomationModule {
  const errors: string[] = [];
  for (const from of [path.join(path.resolve(cwd), "package.json"), __filename]) {
    try {
      return createRequire(from)("@pulumi/pulumi/automation") as AutomationModule;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "MODULE_NOT_FOUND") throw error;
      errors.push(from);
    }
  }
  throw new UsageError(
    `@pulumi/pulumi is not installed for ${path.resolve(cwd)}: run \`npm install @pulumi/pulumi\` ` +
      "in the program's project (it is a peer dependency of pulumi-proxmox).",
  );
}

/** Selects an existing stack; never creates one (a typo must not start an empty stack). */
export async function selectStack(selection: StackSelection): Promise<PulumiStack> {
  const cwd = path.resolve(selection.cwd ?? process.cwd());
  if (selection.program === undefined) checkProgramDir(cwd, selection.cwd);
  const automation = selection.automation ?? loadAutomation(cwd);
  const envVars: Record<string, string> = {
    ...selection.env,
    ...(selection.backend === undefined ? {} : { PULUMI_BACKEND_URL: selection.backend }),
  };
  if (selection.program !== undefined) {
    if (selection.projectName === undefined) {
      throw new UsageError("projectName is required with an inline program");
    }
    return automation.LocalWorkspace.selectStack(
      {
        stackName: selection.stack,
        projectName: selection.projectName,
        program: selection.program,
      },
      { envVars, ...(selection.cwd === undefined ? {} : { workDir: cwd }) },
    );
  }
  try {
    return await automation.LocalWorkspace.selectStack(
      { stackName: selection.stack, workDir: cwd },
      { envVars },
    );
  } catch (error) {
    if (!/no stack named/.test(String((error as Error).message))) throw error;
    const workspace = await automation.LocalWorkspace.create({ workDir: cwd, envVars });
    const names = (await workspace.listStacks()).map((stack) => stack.name);
    throw new UsageError(
      `no stack named '${selection.stack}' found for the program in ${cwd}` +
        (names.length === 0 ? " (it has no stack yet)" : `; its stacks: ${names.join(", ")}`) +
        `. Check --stack; pulumi-proxmox never creates a stack (\`pulumi stack init ${selection.stack}\` does).`,
    );
  }
}

const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"];

/**
 * The program directory must exist and hold the project file: otherwise the engine fails with
 * a spawn error (`code: -2`) or a search upwards that names neither flag.
 */
function checkProgramDir(cwd: string, given: string | undefined): void {
  const flag = given === undefined ? "the current directory" : `--cwd ${given}:`;
  const hint =
    "--cwd takes the program's directory (the one holding Pulumi.yaml), --stack the stack's name";
  if (!fs.existsSync(cwd)) throw new UsageError(`${flag} ${cwd} does not exist. ${hint}`);
  if (!fs.statSync(cwd).isDirectory()) {
    throw new UsageError(`${flag} ${cwd} is not a directory. ${hint}`);
  }
  if (!PROJECT_FILES.some((file) => fs.existsSync(path.join(cwd, file)))) {
    throw new UsageError(`${flag} ${cwd} holds no Pulumi.yaml. ${hint}`);
  }
}
