/**
 * The dynamic provider behind {@link EngineCheck}, in the module-as-provider shape this package
 * uses for every resource: this module's `exports` object *is* the provider, so Pulumi serializes
 * it as `require("pulumi-proxmox/testing/engine-check-provider")` (a few hundred bytes) and
 * delete/refresh always run the installed code. See docs/architecture.md.
 */
import { createHash } from "node:crypto";

interface EngineCheckOutputs {
  readonly message: string;
  readonly digest: string;
}

function outputsFor(inputs: Record<string, unknown>): EngineCheckOutputs {
  const message = String(inputs["message"] ?? "");
  return { message, digest: createHash("sha256").update(message).digest("hex").slice(0, 16) };
}

export async function check(_olds: unknown, news: Record<string, unknown>) {
  const failures =
    typeof news["message"] === "string"
      ? []
      : [{ property: "message", reason: "message must be a string" }];
  return { inputs: news, failures };
}

export async function create(inputs: Record<string, unknown>) {
  const outs = outputsFor(inputs);
  return { id: `engine-check-${outs.digest}`, outs };
}

export async function read(id: string, props: Record<string, unknown>) {
  return { id, props: { ...props, ...outputsFor(props) } };
}

export async function diff(
  _id: string,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
) {
  const changed = olds["message"] !== news["message"];
  return { changes: changed, replaces: changed ? ["message"] : [] };
}

export async function update(_id: string, _olds: unknown, news: Record<string, unknown>) {
  return { outs: outputsFor(news) };
}

export async function delete_(): Promise<void> {}
export { delete_ as delete };
