import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATED, generatedInputs } from "../../scripts/generated-inputs";

const root = join(__dirname, "../..");

describe("the files generated from the input specs", () => {
  it.each(Object.values(GENERATED))("has %s as `npm run gen` writes it", async (path) => {
    const expected = (await generatedInputs(root))[path];
    expect(expected).toBeDefined();
    expect(
      readFileSync(join(root, path), "utf8") === expected,
      `${path} is not what the spec generates: run \`npm run gen\` and commit the result`,
    ).toBe(true);
  });

  it("documents every input of both resources, each once", async () => {
    const doc = (await generatedInputs(root))[GENERATED.inputsDoc] ?? "";
    for (const name of ["node", "networks", "cloudInit", "pool", "url", "checksumAlgorithm"])
      expect(doc).toContain(`| \`${name}\` |`);
  });
});
