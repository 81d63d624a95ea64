import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  engineEnv,
  exportedResources,
  pulumi,
  requireFromWorkspace,
  writeProgram,
  type EngineEnv,
} from "../../e2e/support/engine";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { ENGINE_CHECK_TYPE } from "../../../provider/glue/resource-types";

const program = `
const { EngineCheck } = require("pulumi-proxmox/testing");
const check = new EngineCheck("probe", { message: "hello from the engine" });
exports.digest = check.digest;
exports.message = check.message;
`;

describe("EngineCheck through the real engine", () => {
  let engine: EngineEnv;
  beforeAll(() => {
    engine = engineEnv();
  });
  afterAll(() => engine.cleanup());

  it("goes through up, a clean refresh preview and destroy as a CLI program", async () => {
    const dir = writeProgram("engine-check", program);
    expect((await pulumi(["stack", "init", "dev"], dir, engine.env)).code).toBe(0);

    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expect(up.stderr).toBe("");
    expectSuccess(up);
    expect(up.stdout).toContain("+ 2 created");

    const outputs = JSON.parse(
      (await pulumi(["stack", "output", "--json"], dir, engine.env)).stdout,
    ) as Record<string, string>;
    expect(outputs["message"]).toBe("hello from the engine");
    expect(outputs["digest"]).toMatch(/^[0-9a-f]{16}$/);

    const resources = await exportedResources(dir, engine.env);
    const check = resources.find((r) => r.type === ENGINE_CHECK_TYPE);
    expect(check?.id).toBe(`engine-check-${outputs["digest"]}`);
    // The module-as-provider pattern: the serialized provider is a require of the installed
    // package, not a copy of its code.
    const serialized = String(check?.outputs?.["__provider"]);
    expect(serialized).toContain('require("pulumi-proxmox/testing/engine-check-provider")');
    expect(serialized.length).toBeLessThan(2048);

    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectSuccess(drift);
    expect(drift.stdout).toContain("2 unchanged");

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout).toContain("- 2 deleted");
    expect(await exportedResources(dir, engine.env)).toEqual([]);
  });

  it("fails the drift check when the program's inputs changed", async () => {
    const dir = writeProgram("engine-check-drift", program);
    await pulumi(["stack", "init", "dev"], dir, engine.env);
    expect((await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env)).code).toBe(0);

    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${dir}/index.js`, program.replace("hello from the engine", "changed"));
    const drift = await pulumi(["preview", "--refresh", "--expect-no-changes"], dir, engine.env);
    expectFailure(drift);
    expect(drift.stdout).toContain("+-");
    expect(drift.stdout).toContain("message");
    await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
  });

  it("goes through up, preview and destroy as an automation API inline program", async () => {
    type Automation = typeof import("@pulumi/pulumi/automation");
    const auto = requireFromWorkspace("@pulumi/pulumi/automation") as Automation;
    const { EngineCheck } = requireFromWorkspace("pulumi-proxmox/testing") as {
      EngineCheck: new (
        name: string,
        args: { message: string },
      ) => {
        digest: unknown;
        message: unknown;
      };
    };
    const workDir = writeProgram("engine-check-inline", "");
    const stack = await auto.LocalWorkspace.createOrSelectStack(
      {
        stackName: "ci",
        projectName: "engine-check-inline",
        program: async () => {
          const check = new EngineCheck("probe", { message: "inline" });
          return { digest: check.digest, message: check.message };
        },
      },
      { workDir, envVars: stringEnv(engine.env) },
    );

    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    expect(up.outputs["message"]?.value).toBe("inline");
    expect(up.outputs["digest"]?.value).toMatch(/^[0-9a-f]{16}$/);

    const preview = await stack.preview({ refresh: true, expectNoChanges: true });
    expect(preview.changeSummary).toEqual({ same: 2 });

    const destroy = await stack.destroy();
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
  });
});

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}
