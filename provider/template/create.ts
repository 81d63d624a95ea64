/**
 * create: preflight → the image (downloaded once) → a VM whose boot disk is imported from it,
 * with the template defaults → template → mark complete. Resumable: the mark (identity, phase)
 * is written in the create call itself, so a create retried after a crash finds the VM it
 * started and carries on from its step; the image's name is derived from the identity, so it is
 * not fetched twice.
 */
import { formatMemory } from "../vm/spec/compute";
import type { OperationContext } from "../pve/context";
import { describe, probeOrder } from "../vm/identity";
import { isNameless } from "../vm/steps/find-own-vm";
import type { VmConfig } from "../pve/api/proxmox-api";
import { aboutVmOnce, hasCode, PermanentError, TransientError, vmLabel } from "../pve/errors";
import { LOCK_POLL, pollUntil } from "../pve/poll";
import { ensureImage } from "./download";
import type { TemplateInputs } from "./template-inputs";
import { planOf, readTemplateMark, templateMark, type TemplatePlan } from "./mark";
import { preflightTemplate } from "./preflight";
import type { TemplateState } from "./state";

/** How many VMIDs from the identity's slot a create tries before it gives up. */
const PROBE_WINDOW = 32;

interface Found {
  readonly vmid: number;
  readonly template: boolean;
  readonly complete: boolean;
}

export async function createTemplate(
  ctx: OperationContext,
  inputs: TemplateInputs,
): Promise<TemplateState> {
  const plan = planOf(inputs);
  let own = await findOwnTemplate(ctx, inputs, plan);
  if (own === undefined) {
    await preflightTemplate(ctx, inputs);
    await ensureImage(ctx, inputs, plan);
    own = await createVmFromImage(ctx, inputs, plan);
  } else {
    ctx.progress(`template ${plan.vmName} (VM ${own.vmid}) on node ${inputs.node}: resuming`);
  }
  try {
    return await finish(ctx, inputs, plan, own);
  } catch (error) {
    throw aboutVmOnce(
      error,
      { node: inputs.node, vmid: own.vmid },
      `making template ${plan.vmName}`,
    );
  }
}

/** Converts the created VM to a template and marks it complete, each unless done already. */
async function finish(
  ctx: OperationContext,
  inputs: TemplateInputs,
  plan: TemplatePlan,
  own: Found,
): Promise<TemplateState> {
  const label = `template ${plan.vmName} (VM ${own.vmid}) on node ${inputs.node}`;
  if (!own.template) {
    ctx.progress(`${label}: converting to a template`);
    const upid = await ctx.api.convertToTemplate(inputs.node, own.vmid);
    if (upid !== null) {
      await ctx.waitForTask(inputs.node, upid, {
        budgetMs: inputs.timeouts.taskMs,
        step: `${label}: converting to a template`,
      });
    }
  }
  if (!own.complete) {
    const description = describe(undefined, templateMark(inputs, plan, "complete"));
    // The description alone never hotplugs or touches storage: PUT writes it at once.
    await ctx.api.updateVmConfigSync(inputs.node, own.vmid, { set: { description } });
  }
  const config = await ctx.api.vmConfig(inputs.node, own.vmid);
  return {
    ...inputs,
    vmid: own.vmid,
    vmName: plan.vmName,
    identityHash: plan.identity,
    imageVolid: plan.imageVolid,
    disk: String(config["scsi0"] ?? ""),
  };
}

/**
 * A VM on the node whose mark carries this template's identity: one with its name, or a
 * nameless one in the probe window (PVE writes the name and description only when the create
 * task ends, so a create interrupted mid-task left a VM locked `create`: it is waited out; and
 * the listing may show pvestatd's placeholder name for a while after the task wrote the real one).
 */
async function findOwnTemplate(
  ctx: OperationContext,
  inputs: TemplateInputs,
  plan: TemplatePlan,
): Promise<Found | undefined> {
  const window = new Set(probeOrder(plan.identity, inputs.vmidRange, PROBE_WINDOW));
  const rows = (await ctx.listVms({ fresh: true })).filter(
    (vm) =>
      vm.type === "qemu" &&
      vm.node === inputs.node &&
      (vm.name === plan.vmName ||
        (window.has(vm.vmid) && (isNameless(vm) || vm.lock === "create"))),
  );
  for (const row of rows) {
    const config = await settledConfig(ctx, inputs, row.vmid);
    const mark = readTemplateMark(config?.description);
    if (config === undefined || mark?.id !== plan.identity) continue;
    return {
      vmid: row.vmid,
      template: config.template === true,
      complete: mark.phase === "complete",
    };
  }
  return undefined;
}

/**
 * The VM's config once no create task holds it; undefined when the VM is (or becomes) gone. A
 * lock that outlasts the task budget is a TIMEOUT like any other wait's: transient, since the
 * task may still end.
 */
async function settledConfig(ctx: OperationContext, inputs: TemplateInputs, vmid: number) {
  const settled = await pollUntil<{ config: VmConfig | undefined }>({
    clock: ctx,
    budgetMs: inputs.timeouts.taskMs,
    firstIntervalMs: LOCK_POLL.intervalMs,
    nextIntervalMs: () => LOCK_POLL.intervalMs,
    attempt: async () => {
      try {
        const config = await ctx.api.vmConfig(inputs.node, vmid);
        return config.lock === "create" ? undefined : { config };
      } catch (error) {
        if (hasCode(error, "NOT_FOUND")) return { config: undefined };
        throw error;
      }
    },
    timedOut: (waited) =>
      new TransientError(
        "TIMEOUT",
        `${vmLabel({ vmid, node: inputs.node })} is still locked by a create after ` +
          `${Math.round(waited / 1000)} s; its qmcreate task may still end: run \`pulumi up\` ` +
          "again once it has, or remove the VM if that task is gone.",
        { node: inputs.node, vmid },
      ),
    progressEveryMs: LOCK_POLL.progressEveryMs,
    progress: (waited) =>
      ctx.progress(
        `${vmLabel({ vmid, node: inputs.node })}: waiting for a create in progress to finish ` +
          `(${Math.round(waited / 1000)} s)`,
      ),
  });
  return settled.config;
}

async function createVmFromImage(
  ctx: OperationContext,
  inputs: TemplateInputs,
  plan: TemplatePlan,
): Promise<Found> {
  const taken = new Set((await ctx.listVms({ fresh: true })).map((vm) => vm.vmid));
  const candidates = probeOrder(plan.identity, inputs.vmidRange, PROBE_WINDOW).filter(
    (vmid) => !taken.has(vmid),
  );
  for (const vmid of candidates) {
    const step = `template ${plan.vmName} (VM ${vmid}) on node ${inputs.node}: importing ${plan.imageVolid} into ${inputs.storage}`;
    ctx.progress(step);
    let upid: string;
    try {
      upid = await ctx.api.createVm({
        node: inputs.node,
        vmid,
        config: {
          name: plan.vmName,
          description: describe(undefined, templateMark(inputs, plan, "creating")),
          scsi0: `${inputs.storage}:0,import-from=${plan.imageVolid}`,
          scsihw: "virtio-scsi-single",
          boot: "order=scsi0",
          serial0: "socket",
          vga: "serial0",
          agent: "enabled=1",
          cores: inputs.cores,
          ...formatMemory(inputs.memory),
          net0: `virtio,bridge=${inputs.bridge}`,
          ostype: "l26",
        },
      });
    } catch (error) {
      // Taken since the listing (a concurrent create): try the next VMID.
      if (hasCode(error, "ALREADY_EXISTS")) continue;
      throw error;
    }
    // The VMs cloned from this template must see it in the next listing.
    ctx.api.invalidateClusterVms?.();
    try {
      await ctx.waitForTask(inputs.node, upid, { budgetMs: inputs.timeouts.taskMs, step });
    } catch (error) {
      throw aboutVmOnce(error, { node: inputs.node, vmid }, `creating template ${plan.vmName}`);
    }
    return { vmid, template: false, complete: false };
  }
  throw new PermanentError(
    "RANGE_EXHAUSTED",
    `template ${plan.vmName} on node ${inputs.node}: no free VMID among ${PROBE_WINDOW} tried in ` +
      `vmidRange ${inputs.vmidRange.min}–${inputs.vmidRange.max}. Widen vmidRange.`,
    { node: inputs.node },
  );
}
