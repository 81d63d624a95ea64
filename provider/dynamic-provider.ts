/**
 * The dynamic provider of {@link ProxmoxVm}, as a module whose `exports` object *is* the
 * provider ("module-as-provider"). Pulumi serializes it as
 * `require("pulumi-proxmox/dynamic-provider")`: a few hundred bytes per resource, no captured
 * credentials, and delete/refresh always run the installed code. Each method loads the runtime
 * on first use, so a Pulumi program that only declares resources never loads undici or zod.
 *
 * This subpath is a state contract: it must keep its name and its exports forever.
 */
import type * as EngineWatch from "./glue/engine-watch";
import type * as Runtime from "./glue/runtime";

type Props = Record<string, unknown>;

// A plain `require` here (not an import) keeps the runtime out of the program's process. Only
// the provider process calls it, so that is where the engine watch starts: the provider exits
// when the engine that started it is gone, instead of running on as an orphan. Both stay plain
// `require`s: an imported binding would be walked by Pulumi's closure serializer wherever the
// module is not loaded from node_modules (tests, a linked checkout).
const runtime = (): typeof Runtime => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require("./glue/engine-watch") as typeof EngineWatch).installEngineWatch();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("./glue/runtime") as typeof Runtime;
};

export function configure(request: { config: { get(key: string): string | undefined } }) {
  return runtime().configure(request.config);
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
export function update(id: string, olds: Props, news: Props) {
  return runtime().update(id, olds, news);
}
function remove(id: string, props: Props) {
  return runtime().remove(id, props);
}
export { remove as delete };
