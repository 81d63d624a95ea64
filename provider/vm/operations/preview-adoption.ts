/**
 * The preview of an adoption (`adopt: { vmid }`), run by `check` when the resource is new: the
 * engine shows a create, so what `up` will write to the existing VM is printed here, key by key,
 * the VM's value against the program's. A refusal becomes a check failure, so the preview and
 * the `up` fail before anything is written.
 */
import type { CheckFailure } from "../../inputs/check-failure";
import type { OperationContext } from "../../pve/context";
import { isPermanent } from "../../pve/errors";
import { adoptionWrite, describeAdoption, inspectAdoption } from "../steps/adopt-vm";
import { adoptionNaming, type ResolvedInputs } from "../steps/resolved-inputs";

/**
 * The VMIDs adopted by the resources this provider process checked, and by whom. One process
 * checks every resource of the stack (of one provider), so two that name one VMID meet here.
 */
const claims = new Map<number, string>();

export async function previewAdoption(
  ctx: OperationContext,
  vmid: number,
  inputs: ResolvedInputs,
): Promise<CheckFailure | undefined> {
  const name = inputs.identity.name;
  const other = claims.get(vmid);
  if (other !== undefined && other !== name) {
    return {
      property: "adopt.vmid",
      reason:
        `VM ${vmid} is adopted by another ProxmoxVm of this stack (${other}) as well; ` +
        "nothing was written. Adopt each VM from one resource.",
    };
  }
  claims.set(vmid, name);
  try {
    const naming = adoptionNaming(inputs, undefined);
    const found = await inspectAdoption(ctx, vmid, inputs, naming);
    if (found.replaced) return undefined;
    for (const line of describeAdoption(found, adoptionWrite(found.known.config, inputs, naming)))
      ctx.progress(line);
    return undefined;
  } catch (error) {
    // A refusal is the program's to fix; anything else (the cluster unreachable) is met again
    // by the create, which checks the same things before it writes.
    if (!isPermanent(error)) return undefined;
    const [property, ...rest] = error.message.split(": ");
    return rest.length > 0 && /^[a-zA-Z.]+$/.test(property ?? "")
      ? { property: property ?? "adopt.vmid", reason: rest.join(": ") }
      : { property: "adopt.vmid", reason: error.message };
  }
}
