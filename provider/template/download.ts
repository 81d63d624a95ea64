/**
 * The image download: PVE fetches the URL itself (`download-url`, a task), verifies the
 * checksum, and stores the file as `import` content under a name derived from the identity. An
 * image already there (an interrupted create) is not fetched again. While the task runs, its
 * log's wget progress lines (bytes, percent) become progress lines.
 */
import type { Upid } from "../api/proxmox-api";
import type { OperationContext } from "../context";
import type { TemplateInputs } from "./inputs";
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
