/**
 * The dynamic provider of {@link CloudImageTemplate}, a module whose `exports` object *is* the
 * provider, as dynamic-provider.ts is for ProxmoxVm: Pulumi serializes it as
 * `require("pulumi-proxmox/template-provider")`, and each method loads the runtime on first use.
 * Every change of a template is a replacement, so there is no `update`.
 *
 * This subpath is a state contract: it must keep its name and its exports forever.
 */
import type * as EngineWatch from "./glue/engine-watch";
import type * as Runtime from "./glue/runtime";
import type * as TemplateRuntime from "./template/template-runtime";

type Props = Record<string, unknown>;

// Plain `require`s, for the reasons dynamic-provider.ts gives.
const runtime = (): typeof TemplateRuntime => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require("./glue/engine-watch") as typeof EngineWatch).installEngineWatch();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("./template/template-runtime") as typeof TemplateRuntime;
};

export function configure(request: { config: { get(key: string): string | undefined } }) {
  runtime();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("./glue/runtime") as typeof Runtime).configure(request.config);
}
export function check(olds: Props, news: Props) {
  return runtime().check(olds, news);
}
export function diff(id: string, olds: Props, news: Props) {
  return runtime().diff(id, olds, news);
}
export function create(inputs: Props) {
  return runtime().create(inputs);
}
export function read(id: string, props: Props) {
  return runtime().read(id, props);
}
function remove(id: string, props: Props) {
  return runtime().remove(id, props);
}
export { remove as delete };
