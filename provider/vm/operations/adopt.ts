/**
 * create for `adopt: { vmid }`: take over an existing VM instead of cloning one; undefined when
 * that VM is this resource's own, adopted for another placement (a replacement clones). Under the VM's
 * lock, so two resources of this stack that name one VMID cannot both take it: the second finds
 * the first one's mark and is refused before it writes anything.
 */
import type { OperationContext } from "../../pve/context";
import type { VmState } from "../state/vm-state";
import { unobservedVmState } from "../state/vm-state";
import { VmInitError } from "../init-error";
import { inspectAdoption } from "../steps/adopt-vm";
import { convergeAdopted } from "../steps/converge-adopted";
import { observe } from "../steps/observe";
import { adoptionNaming, type ResolvedInputs } from "../steps/resolved-inputs";

export async function adoptVm(
  ctx: OperationContext,
  vmid: number,
  inputs: ResolvedInputs,
  stateExtras: Record<string, unknown>,
): Promise<VmState | undefined> {
  return ctx.withLock(`vm:${vmid}`, async () => {
    const base = adoptionNaming(inputs, undefined);
    const found = await inspectAdoption(ctx, vmid, inputs, base);
    // A replacement of the VM this resource adopted: the caller clones a new one.
    if (found.replaced) return undefined;
    const naming = adoptionNaming(inputs, found.known.config.name);
    ctx.progress(
      `VM ${vmid} on ${found.node}: ${found.ours ? "resuming an interrupted adoption" : "adopting (no clone)"}`,
    );
    try {
      const done = await convergeAdopted(ctx, found, inputs, naming, { known: found.known });
      return await observe(ctx, done, inputs, naming);
    } catch (error) {
      // Marked or not, the VM is the program's now: the next `up` finishes (or redoes) it.
      throw new VmInitError(
        vmid,
        unobservedVmState(
          { ...stateExtras, ...inputs },
          { vmid, node: found.node, identityHash: naming.identity, vmName: naming.vmName },
        ),
        error,
      );
    }
  });
}
