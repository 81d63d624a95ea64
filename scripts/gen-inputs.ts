/**
 * Writes the files generated from the input specs (scripts/generated-inputs.ts): `npm run gen`
 * after a spec entry is added or changed. A unit test fails while one is not current.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generatedInputs } from "./generated-inputs";

// npm runs scripts from the package root.
const root = process.cwd();

void generatedInputs(root).then((files) => {
  for (const [path, text] of Object.entries(files)) {
    writeFileSync(join(root, path), text);
    console.log(`wrote ${path}`);
  }
});
