/**
 * The provider process's side of the glue: configuration, the one OperationContext per process,
 * and the mapping between Pulumi's dynamic-provider calls and the operations. Loaded lazily by
 * dynamic-provider.ts, only inside the provider process, from this package's own node_modules
 * path — so module-level state here really is shared by every resource of the deployment.
 *
 * The process loads only what its calls need: `preview --refresh` starts one provider process
 * for the refresh (read) and another for the preview (check, diff), and every module loaded at
 * start delays each of them. So check and diff load the spec alone; the connection (undici) is
 * loaded by the first call that talks to Proxmox; and create, update and delete, with the seed
 * writer and the steps that change VMs, are loaded by their first call. These are dynamic
 * `import()`s inside the (already asynchronous) functions: lazy in the build, and resolved like
 * any import in the tests, which run the TypeScript sources.
 *
 * @internal
 */
import type { ConfigReader } from "../pve/connection";
import type { OperationContext } from "../pve/context";
import { forEngine } from "../inputs/check-failure";
import { containsUnknown } from "../inputs/unknown";
import { checkVm } from "../vm/operations/check";
import { adoptedVmid } from "../vm/operations/check-adopt";
import { diffVm } from "../vm/operations/diff";
import { readVm } from "../vm/operations/read";
import type { ResolvedInputs } from "../vm/steps/resolved-inputs";
import { parseVmState, type VmState } from "../vm/state/vm-state";

type Props = Record<string, unknown>;

let config: ConfigReader = { get: () => undefined };
let ready: Promise<OperationContext> | undefined;

/**
 * Called once per provider process with the stack config, which it only keeps: the context is
 * built by the first call that needs one, so a preview's check and diff never load the
 * connection. Every such call awaits the one promise `context` stores, so none can run ahead
 * of the config even though the host caches the provider before `configure` settles. A bad
 * config is reported by that first call, with its own message.
 */
export function configure(reader: ConfigReader): Promise<void> {
  config = reader;
  ready = undefined;
  return Promise.resolve();
}

/** @internal The process's one context, shared with the template glue (template/template-runtime.ts). */
export function context(): Promise<OperationContext> {
  ready ??= import("../pve/connection.js").then(({ buildContext }) => buildContext(config));
  return ready;
}

/**
 * check, then — when the inputs pass and name a new node or new bridges — each NIC's bridge
 * looked up on the node (vm/steps/bridges.ts), so a preview refuses a bridge PVE would only
 * refuse at the VM's start; and under `rollbackOnFailure`, what PVE cannot snapshot
 * (vm/rollback/preview.ts).
 *
 * The engine stores the inputs as the program wrote them, not as `check` resolves them: with the
 * program run (`preview --refresh --run-program`, as `pulumi-proxmox drift` runs it), the engine
 * compares the stored inputs with the program's own, and every default `check` filled in would
 * read as removed (`refreshing [diff: -agent,…]`). diff, create and update resolve them again.
 */
export async function check(olds: Props, news: Props) {
  const result = checkVm(olds, news);
  if (result.failures.length > 0) return { ...result, failures: forEngine(result.failures) };
  // A new adoption reads the VM it takes over: the preview shows what `up` will write to it.
  const vmid = adoptedVmid(result.inputs);
  if (vmid !== undefined && adoptedVmid(olds) !== vmid && !containsUnknown(result.inputs)) {
    const { previewAdoption } = await import("../vm/operations/preview-adoption.js");
    const ctx = await context().catch(() => undefined);
    const failure = ctx && (await previewAdoption(ctx, vmid, result.inputs as ResolvedInputs));
    if (failure) return { inputs: { ...news }, failures: forEngine([failure]) };
  }
  const { bridgeFailures } = await import("../vm/steps/bridges.js");
  const before = Object.keys(olds).length === 0 ? olds : checkVm({}, olds).inputs;
  const { hostDeviceFailures } = await import("../vm/steps/host-devices.js");
  const { rootOnlyFailures } = await import("../vm/steps/root-only.js");
  const failures = [
    ...(await bridgeFailures(context, before, result.inputs)),
    ...(await hostDeviceFailures(context, before, result.inputs)),
    ...(await rootOnlyFailures(context, before, result.inputs)),
  ];
  // A VM the stack has, under rollbackOnFailure: what PVE cannot snapshot is refused here.
  if (
    Object.keys(olds).length > 0 &&
    (result.inputs["rollbackOnFailure"] ?? false) !== false &&
    !containsUnknown(result.inputs)
  ) {
    const { previewRollback } = await import("../vm/rollback/preview.js");
    const ctx = await context().catch(() => undefined);
    if (ctx) failures.push(...(await previewRollback(ctx, result.inputs as ResolvedInputs)));
  }
  return { inputs: { ...news }, failures: forEngine(failures) };
}

export async function diff(_id: string, olds: Props, news: Props) {
  const result = diffVm(olds, checkVm({}, news).inputs);
  return {
    changes: result.changes,
    replaces: result.replaces,
    deleteBeforeReplace: result.deleteBeforeReplace,
  };
}

export async function create(inputs: Props) {
  const { createVm } = await import("../vm/operations/create.js");
  const ctx = await context();
  const state = await createVm(ctx, resolved(inputs), providerOf(inputs));
  return { id: String(state.vmid), outs: wire({ ...providerOf(inputs), ...stored(state) }) };
}

/**
 * The state as the next read parses it (stored defaults filled, e.g. an adopted VM's `agent`), so
 * a refresh never reports a value that only the parse added as "changed outside Pulumi".
 */
const stored = (state: VmState): VmState => parseVmState(state);

export async function read(id: string, props: Props) {
  const ctx = await context();
  const state = await readVm(ctx, parseVmState(props));
  if (state === undefined) return { id: "", props: {} };
  return { id, props: wire({ ...providerOf(props), ...state }) };
}

export async function update(_id: string, olds: Props, news: Props) {
  const { updateVm } = await import("../vm/operations/update.js");
  const ctx = await context();
  const state = await updateVm(ctx, parseVmState(olds), resolved(news), providerOf(news));
  return { outs: wire({ ...providerOf(news), ...stored(state) }) };
}

export async function remove(_id: string, props: Props): Promise<void> {
  const { deleteVm } = await import("../vm/operations/delete.js");
  const ctx = await context();
  await deleteVm(ctx, parseVmState(props));
}

/** Create and update get the stored inputs, resolved as `check` resolves them: all known. */
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
