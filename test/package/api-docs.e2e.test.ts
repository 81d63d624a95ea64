import { execFile } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../e2e/support/paths";

describe("API reference (typedoc.json)", () => {
  it("builds from the TSDoc of the provider, components and simulator with no warning", async () => {
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [path.join(repoRoot, "node_modules/typedoc/bin/typedoc"), "--emit", "none"],
        { cwd: repoRoot },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    // typedoc.json sets treatWarningsAsErrors: a broken {@link} or a missing export fails here.
    expect(result.code, result.output).toBe(0);
    expect(result.output).not.toMatch(/warning|error/i);
  });
});
