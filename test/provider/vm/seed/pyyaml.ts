/**
 * PyYAML's `safe_load` (cloud-init's YAML loader) as an oracle: one python3 process checks a
 * whole batch of documents. Needs python3-yaml (scripts/install-test-deps.sh).
 */
import { run } from "./iso-readers.js";

export type PyYamlResult =
  { ok: true; value: unknown } | { ok: false; line: number; error: string };

const SCRIPT = `
import json, sys, yaml
out = []
for doc in json.load(sys.stdin):
    try:
        out.append({"ok": True, "value": json.loads(json.dumps(yaml.safe_load(doc), default=str))})
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        out.append({"ok": False, "line": mark.line + 1 if mark else 0, "error": str(e)})
    except yaml.YAMLError as e:
        out.append({"ok": False, "line": 0, "error": str(e)})
json.dump(out, sys.stdout)
`;

/** Loads each document with PyYAML; values are passed through JSON (non-JSON values as str). */
export function pyYamlLoad(docs: readonly string[]): PyYamlResult[] {
  return JSON.parse(run("python3", ["-c", SCRIPT], JSON.stringify(docs))) as PyYamlResult[];
}
