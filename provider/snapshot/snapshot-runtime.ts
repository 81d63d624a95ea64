/**
 * The provider process's side of the `VmSnapshot` glue: Pulumi's dynamic-provider calls mapped
 * to the snapshot operations, on the process's one context (glue/runtime.ts), shared with the VMs.
 *
 * @internal
 */
import { forEngine } from "../inputs/check-failure";
import { context, providerOf, wire } from "../glue/runtime";
import { createVmSnapshot } from "./create";
import { deleteVmSnapshot } from "./delete";
import { diffSnapshot } from "./diff";
import { checkSnapshot, resolvedSnapshot } from "./inputs";
import { readSnapshot } from "./read";
import { parseSnapshotState } from "./state";
import { updateVmSnapshot } from "./update";

type Props = Record<string, unknown>;

/** The engine stores the inputs as the program wrote them (see glue/runtime.ts `check`). */
export async function check(_olds: Props, news: Props) {
  const result = checkSnapshot(news);
  return result.failures.length > 0
    ? { ...result, failures: forEngine(result.failures) }
    : { inputs: { ...news }, failures: [] };
}

export async function diff(_id: string, olds: Props, news: Props) {
  return diffSnapshot(olds, checkSnapshot(news).inputs);
}

export async function create(inputs: Props) {
  const ctx = await context();
  const state = await createVmSnapshot(ctx, resolvedSnapshot(inputs));
  return {
    id: `${state.vmid}/${state.snapshotName}`,
    outs: wire({ ...providerOf(inputs), ...state }),
  };
}

export async function read(id: string, props: Props) {
  const ctx = await context();
  const state = await readSnapshot(ctx, parseSnapshotState(props));
  if (state === undefined) return { id: "", props: {} };
  return { id, props: wire({ ...providerOf(props), ...state }) };
}

export async function update(_id: string, olds: Props, news: Props) {
  const ctx = await context();
  const state = await updateVmSnapshot(ctx, parseSnapshotState(olds), resolvedSnapshot(news));
  return { outs: wire({ ...providerOf(news), ...state }) };
}

export async function remove(_id: string, props: Props): Promise<void> {
  const ctx = await context();
  await deleteVmSnapshot(ctx, parseSnapshotState(props));
}
