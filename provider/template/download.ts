/**
 * The image download: PVE fetches the URL itself (`download-url`, a task), verifies the
 * checksum, and stores the file as `import` content under a name derived from the identity. An
 * image already there (an interrupted create) is not fetched again, and neither is one whose
 * download still runs (a run whose answer to `download-url` was lost, or that could not read
 * the task's status, started it): that task is waited for instead. While a task runs, its
 * log's wget progress lines (bytes, percent) become progress lines.
 */
import { idOfUpid, typeOfUpid } from "../pve/upid";
import type { Upid } from "../pve/api/proxmox-api";
import { isTransient } from "../pve/errors";
import type { OperationContext } from "../pve/context";
import type { TemplateInputs } from "./template-inputs";
import type { TemplatePlan } from "./mark";
import { redactedError, redactUrls } from "./redact";

/** How often the task log is read for progress while the download runs. */
const PROGRESS_POLL_MS = 2_000;

export async function ensureImage(
  ctx: OperationContext,
  inputs: TemplateInputs,
  plan: TemplatePlan,
): Promise<void> {
  // PVE's answers and the task log name the URL: its query string is redacted from the error.
  await download(ctx, inputs, plan).catch((error: unknown) => {
    throw redactedError(error);
  });
}

async function download(
  ctx: OperationContext,
  inputs: TemplateInputs,
  plan: TemplatePlan,
): Promise<void> {
  // Looked for before the storage: a download that ends between the two calls is then seen
  // in the storage listing.
  const running = await runningDownload(ctx, inputs.node, plan.imageFile);
  if (running !== undefined) {
    const step = `waiting for the download to ${plan.imageVolid} on node ${inputs.node} already running (${running})`;
    ctx.progress(step);
    const done = ctx.waitForTask(inputs.node, running, {
      budgetMs: inputs.timeouts.downloadMs,
      step,
    });
    await reportProgress(ctx, inputs.node, running, done);
    await done;
  }
  const stored = await ctx.api.storageContent(inputs.node, inputs.importStorage, "import");
  if (stored.some((volume) => volume.volid === plan.imageVolid)) {
    ctx.progress(`${plan.imageVolid} on node ${inputs.node}: already downloaded`);
    return;
  }
  const step = `downloading ${redactUrls(inputs.url)} to ${plan.imageVolid} on node ${inputs.node}`;
  ctx.progress(step);
  const upid = await ctx.api.downloadUrl({
    node: inputs.node,
    storage: inputs.importStorage,
    url: inputs.url,
    filename: plan.imageFile,
    content: "import",
    checksum:
      inputs.checksum === undefined || inputs.checksumAlgorithm === undefined
        ? undefined
        : { algorithm: inputs.checksumAlgorithm, value: inputs.checksum },
  });
  const done = ctx.waitForTask(inputs.node, upid, { budgetMs: inputs.timeouts.downloadMs, step });
  // The progress reader ends when the task does; the task's own outcome is then the answer.
  await reportProgress(ctx, inputs.node, upid, done);
  await done;
}

/**
 * The `download` task on `node` that is writing `file`, if one runs. PVE names a download-url
 * task by its target file (the worker id of its UPID), not by its storage; the file name is
 * derived from the template's identity, so another storage's file of that name is the same
 * image of the same template.
 */
async function runningDownload(
  ctx: OperationContext,
  node: string,
  file: string,
): Promise<Upid | undefined> {
  // A blip of the listing only costs the wait: the download goes ahead as it did before.
  const active = await ctx.api
    .nodeTasks(node, { source: "active" })
    .catch((error: unknown) => (isTransient(error) ? [] : Promise.reject(error)));
  return active.find(({ upid }) => typeOfUpid(upid) === "download" && idOfUpid(upid) === file)
    ?.upid;
}

/** wget's dot lines end with the percentage and rate: `… ........  79% 118M`. */
const PERCENT = /\s(\d{1,3})%\s/;
/** wget's `Length: 1234 (1.2K) [type]`. */
const LENGTH = /^Length: (\d+)/;

async function reportProgress(
  ctx: OperationContext,
  node: string,
  upid: Upid,
  done: Promise<unknown>,
): Promise<void> {
  let finished = false;
  void done.then(
    () => (finished = true),
    () => (finished = true),
  );
  let seen = 0;
  let total: number | undefined;
  const readNew = async () => {
    const lines = await ctx.api.taskLog(node, upid, seen, 500).catch(() => []);
    seen += lines.length;
    for (const { t } of lines) {
      const length = LENGTH.exec(t)?.[1];
      if (length !== undefined) total = Number(length);
      const percent = PERCENT.exec(` ${t} `)?.[1];
      if (percent === undefined) continue;
      const bytes = total === undefined ? "" : ` of ${total} bytes`;
      ctx.progress(`download on node ${node}: ${percent}%${bytes}`);
    }
  };
  while (!finished) {
    await readNew();
    if (!finished) await Promise.race([ctx.sleep(PROGRESS_POLL_MS), done.catch(() => undefined)]);
  }
  await readNew();
}
