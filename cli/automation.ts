/**
 * Reaching the Pulumi engine through the automation API. `@pulumi/pulumi` is a peer dependency:
 * the module is loaded from the user's project (the program directory) so that the CLI drives the
 * same SDK copy the program uses, and only falls back to the copy next to this package.
 */
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
  return automation.LocalWorkspace.selectStack(
    { stackName: selection.stack, workDir: cwd },
    {
      envVars,
    },
  );
}
