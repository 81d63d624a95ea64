/**
 * The provider process's side of the glue: configuration, the one OperationContext per process,
 * and the mapping between Pulumi's dynamic-provider calls and the operations. Loaded lazily by
 * dynamic-provider.ts, only inside the provider process, from this package's own node_modules
 * path — so module-level state here really is shared by every resource of the deployment.
 *
 * @internal
 */
import { coalescedApi, sharedListingCoalescer, sharedNodeListings } from "./api/coalesced-api";
import { HttpProxmoxApi } from "./api/http-api";
import { retryingApi } from "./api/retrying-api";
import { tracedApi } from "./api/traced-api";
import { parseConnectionConfig } from "./config";
import type { ListingAge, OperationContext } from "./context";
import { engineSignal } from "./engine-watch";
import { operationContext } from "./operation-context";
import { checkVm } from "./operations/check";
import { createVm } from "./operations/create";
import { deleteVm } from "./operations/delete";
import { diffVm } from "./operations/diff";
import { readVm } from "./operations/read";
import type { ResolvedInputs } from "./operations/resolved-inputs";
import { updateVm } from "./operations/update";
import { parseVmState } from "./state/vm-state";

type Props = Record<string, unknown>;

interface ConfigReader {
  get(key: string): string | undefined;
}

let ready: Promise<OperationContext> | undefined;

/**
 * Called once per provider process with the stack config. Stores a promise, awaited by every
 * call: the host caches the provider before `configure` settles (measured race, see the notes).
 */
export function configure(config: ConfigReader): Promise<void> {
  ready = Promise.resolve().then(() => buildContext(config));
  // The failure is reported by the first operation that needs the context, with its own message.
  ready.catch(() => undefined);
  return Promise.resolve();
}

/** @internal The process's one context, shared with the template glue (template/runtime.ts). */
export function context(): Promise<OperationContext> {
  ready ??= Promise.resolve().then(() => buildContext({ get: () => undefined }));
  return ready;
}

/** @internal Exported for integration tests, which build a context per simulator. */
export function buildContext(config: ConfigReader): OperationContext {
  const connection = parseConnectionConfig({
    endpoint: config.get("proxmox:endpoint"),
    apiToken: config.get("proxmox:apiToken"),
    apiTokenFile: config.get("proxmox:apiTokenFile"),
    caCert: config.get("proxmox:caCert"),
    insecure: config.get("proxmox:insecure"),
    maxConnections: config.get("proxmox:maxConnections"),
    heavyTasksPerNode: config.get("proxmox:heavyTasksPerNode"),
  });
  const debug = process.env["PULUMI_PROXMOX_DEBUG"] === "1";
  const http = new HttpProxmoxApi({
    connection,
    logger: { warn: (m: string) => console.warn(m) },
    signal: engineSignal(),
  });
  const traced = tracedApi(http, { debug: (m) => (debug ? console.error(m) : undefined) });
  const coalescer = sharedListingCoalescer(connection.origin);
  const progress = (message: string) => console.log(`pulumi-proxmox: ${message}`);
  // Retried below the coalescer, so callers sharing one listing also share its retries.
  const api = coalescedApi(
    retryingApi(traced, { progress }),
    coalescer,
    sharedNodeListings(connection.origin),
  );
  const listVms = async (options?: ListingAge) => {
    if (options?.fresh) coalescer.invalidate();
    if (options?.anyAge) return coalescer.get(() => api.clusterVms(), { anyAge: true });
    return api.clusterVms();
  };
  // The engine shows the dynamic provider's stdout as info lines: the user's progress view.
  return operationContext(
    api,
    listVms,
    {
      progress,
      warn: (message) => console.warn(`pulumi-proxmox: warning: ${message}`),
    },
    { heavyTasksPerNode: connection.heavyTasksPerNode },
  );
}

export async function check(olds: Props, news: Props) {
  return checkVm(olds, news);
}

export async function diff(_id: string, olds: Props, news: Props) {
  const result = diffVm(olds, news);
  return {
    changes: result.changes,
    replaces: result.replaces,
    deleteBeforeReplace: result.deleteBeforeReplace,
  };
}

export async function create(inputs: Props) {
  const ctx = await context();
  const state = await createVm(ctx, resolved(inputs), providerOf(inputs));
  return { id: String(state.vmid), outs: wire({ ...providerOf(inputs), ...state }) };
}

export async function read(id: string, props: Props) {
  const ctx = await context();
  const state = await readVm(ctx, parseVmState(props));
  if (state === undefined) return { id: "", props: {} };
  return { id, props: wire({ ...providerOf(props), ...state }) };
}

export async function update(_id: string, olds: Props, news: Props) {
  const ctx = await context();
  const state = await updateVm(ctx, parseVmState(olds), resolved(news), providerOf(news));
  return { outs: wire({ ...providerOf(news), ...state }) };
}

export async function remove(_id: string, props: Props): Promise<void> {
  const ctx = await context();
  await deleteVm(ctx, parseVmState(props));
}

/** Create and update get the inputs `check` returned: parsed, with defaults, all known. */
function resolved(inputs: Props): ResolvedInputs {
  return checkVm({}, inputs).inputs as ResolvedInputs;
}

/**
 * @internal Outputs as the engine can take them: protobuf's Struct rejects `undefined`, which optional
 * fields carry; JSON drops them.
 */
export function wire(props: Props): Props {
  return JSON.parse(JSON.stringify(props)) as Props;
}

/** @internal `__provider` must travel with every output set (a partial create's included). */
export function providerOf(props: Props): Props {
  return props["__provider"] === undefined ? {} : { __provider: props["__provider"] };
}
