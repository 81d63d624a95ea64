/** update: only the description changes in place (diff replaces the snapshot for anything else). */
import type { OperationContext } from "../pve/context";
import type { SnapshotInputs } from "./inputs";
import { findVm } from "./locate";
import { readSnapshot } from "./read";
import type { SnapshotState } from "./state";
import { PermanentError, vmLabel } from "../pve/errors";

export async function updateVmSnapshot(
  ctx: OperationContext,
  state: SnapshotState,
  inputs: SnapshotInputs,
): Promise<SnapshotState> {
  const found = await findVm(ctx, { node: state.node, vmid: state.vmid });
  const gone = () =>
    new PermanentError(
      "NOT_FOUND",
      `${vmLabel(state)}: snapshot ${state.snapshotName} is gone (deleted outside Pulumi); ` +
        "`pulumi refresh` drops it from the state and the next `up` takes it again.",
      { vmid: state.vmid, node: state.node },
    );
  if (found === undefined) throw gone();
  ctx.progress(`${vmLabel(found.vm)}: describing snapshot ${state.snapshotName}`);
  await ctx.api.updateSnapshot(
    found.vm.node,
    found.vm.vmid,
    state.snapshotName,
    inputs.description,
  );
  const read = await readSnapshot(ctx, { ...state, ...inputs, snapshotName: state.snapshotName });
  if (read === undefined) throw gone();
  return read;
}
