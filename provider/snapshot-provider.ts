/**
 * The dynamic provider of {@link VmSnapshot}, a module whose `exports` object *is* the provider,
 * as template-provider.ts is for CloudImageTemplate: Pulumi serializes it as
 * `require("pulumi-proxmox/snapshot-provider")`, and each method loads the runtime on first use.
 *
 * This subpath is a state contract: it must keep its name and its exports forever.
 */
import type * as EngineWatch from "./glue/engine-watch";
import type * as Runtime from "./glue/runtime";
import type * as SnapshotRuntime from "./snapshot/snapshot-runtime";

type Props = Record<string, unknown>;

// Plain `require`s, for the reasons dynamic-provider.ts gives.
const runtime = (): typeof SnapshotRuntime => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require("./glue/engine-watch") as typeof EngineWatch).installEngineWatch();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("./snapshot/snapshot-runtime") as typeof SnapshotRuntime;
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
export function update(id: string, olds: Props, news: Props) {
  return runtime().update(id, olds, news);
}
function remove(id: string, props: Props) {
  return runtime().remove(id, props);
}
export { remove as delete };
