import { createHash } from "node:crypto";
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { hasPriv, requirePrivs, storagePath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { FetchError, fetchUrl, isLoopbackHost } from "../http/fetch-url.js";
import { dieError, permError, validateParams, type Params, type Route } from "../http/index.js";
import { templateFeatures } from "../model/pve-features.js";
import { FILE_BASED, fileDigests, storedFile, volumePath } from "../model/storage-files.js";
import type { TaskContext } from "../model/tasks.js";
import { WgetProgress, wgetSize, wgetTime } from "../model/wget-log.js";
import { storageOrDie } from "./storage.js";
import { checkChecksumPair, fileParams } from "./upload.js";

/** Every content type a release may take here; the current release's subset is checked later. */
const ALL_CONTENTS = ["iso", "vztmpl", "import"];

/** Compression formats download-url names (pve-storage's KNOWN_COMPRESSION_FORMATS). */
const COMPRESSIONS = ["gz", "lzo", "zst", "bz2"];
const DECOMPRESS: Readonly<Record<string, (data: Buffer) => Buffer>> = {
  gz: gunzipSync,
  zst: zstdDecompressSync,
};

/**
 * download_url's permission: Datastore.AllocateTemplate on the storage and, because the node
 * fetches the URL from its own network, Sys.Audit+Sys.Modify on `/` or (PVE 8.1+)
 * Sys.AccessNetwork on the node. PVE's failed `or` names no privilege.
 */
function downloadPermission(
  sim: SimContext,
  { tokenId, raw }: { tokenId: string; raw: Record<string, unknown> },
): void {
  requirePrivs(sim, tokenId, storagePath(raw), ["Datastore.AllocateTemplate"]);
  if (!templateFeatures(sim.options.profile.pveVersion).accessNetworkPrivilege) {
    requirePrivs(sim, tokenId, "/", ["Sys.Audit", "Sys.Modify"]);
    return;
  }
  const onRoot = ["Sys.Audit", "Sys.Modify"].every((p) => hasPriv(sim, tokenId, "/", p));
  const onNode = hasPriv(sim, tokenId, `/nodes/${String(raw["node"])}`, "Sys.AccessNetwork");
  if (!onRoot && !onNode) throw permError();
}

interface Download {
  readonly node: string;
  readonly storage: string;
  readonly content: string;
  readonly url: string;
  readonly volname: string;
  readonly format: string;
  readonly dest: string;
  readonly checksum: { algorithm: string; value: string } | undefined;
  readonly compression: string | undefined;
  readonly verifyCertificates: boolean;
}

/** True when an existing file makes the download unnecessary; throws when it blocks it. */
function existingFileIsCurrent(sim: SimContext, job: Download, ctx: TaskContext): boolean {
  const existing = sim.cluster.volume(job.node, `${job.storage}:${job.volname}`);
  if (existing === undefined) return false;
  if (job.checksum === undefined)
    throw dieError(`refusing to override existing file '${job.dest}'`);
  const got = existing.checksums?.[job.checksum.algorithm];
  if (got === undefined)
    throw dieError(`pve-sim kept no bytes of '${job.dest}' to compare its checksum`);
  if (got === job.checksum.value.toLowerCase()) {
    ctx.log(
      "calculating checksum of existing file...OK, got correct file already, no need to download",
    );
    return true;
  }
  ctx.log("calculating checksum of existing file...");
  throw dieError(`checksum mismatch: got '${got}' != expect '${job.checksum.value}', aborting`);
}

/** PVE::Tools::download_file_from_url with wget, as the `download` task runs it. */
async function download(sim: SimContext, job: Download, ctx: TaskContext): Promise<void> {
  if (job.compression !== undefined && job.content !== "iso")
    throw dieError(`decompression not supported for ${job.content}`);
  ctx.log(`downloading ${job.url} to ${job.dest}`);
  if (existingFileIsCurrent(sim, job, ctx)) return;
  const tmp = `${job.dest}.tmp.${ctx.task.pid}`;
  const command = [
    "wget",
    "--progress=dot:giga",
    "-O",
    tmp,
    job.url,
    ...(job.verifyCertificates ? [] : ["--no-check-certificate"]),
  ].join(" ");
  const failed = (exit: number): Error =>
    dieError(`download failed: command '${command}' failed: exit code ${exit}`);
  ctx.log(`--${wgetTime()}--  ${job.url}`);
  let progress: WgetProgress | undefined;
  const fetched = await fetchUrl(job.url, {
    verifyCertificates: job.verifyCertificates,
    allowHost: (host) => {
      if (!sim.options.allowRemoteDownloads && !isLoopbackHost(host))
        throw new FetchError(
          `pve-sim fetches only from loopback addresses, not '${host}' (start it with allowRemoteDownloads to reach the network)`,
          4,
        );
    },
    onResponse: (res) => {
      const status = res.statusCode ?? 0;
      ctx.log(`HTTP request sent, awaiting response... ${status} ${res.statusMessage ?? ""}`);
      if (status < 200 || status >= 300) return;
      const length = res.headers["content-length"];
      const type = res.headers["content-type"] ?? "application/octet-stream";
      const total = length === undefined ? undefined : Number(length);
      ctx.log(
        total === undefined
          ? `Length: unspecified [${type}]`
          : `Length: ${total}${total >= 1024 ? ` (${wgetSize(total)})` : ""} [${type}]`,
      );
      ctx.log(`Saving to: '${tmp}'`);
      progress = new WgetProgress(total);
    },
    onData: (received) => {
      for (const line of progress?.advance(received) ?? []) ctx.log(line);
    },
  }).catch((err: unknown) => {
    if (!(err instanceof FetchError)) throw err;
    ctx.log(err.message);
    throw failed(err.wgetExit);
  });
  if (fetched.status < 200 || fetched.status >= 300) {
    ctx.log(`${wgetTime()} ERROR ${fetched.status}: ${fetched.statusText}.`);
    throw failed(8);
  }
  ctx.log("");
  ctx.log(progress?.finish(fetched.body.length) ?? "");
  ctx.log("");
  ctx.log(
    `${wgetTime()} (${wgetSize(fetched.body.length)}B/s) - '${tmp}' saved [${fetched.body.length}/${fetched.length ?? fetched.body.length}]`,
  );
  let data = fetched.body;
  if (job.compression !== undefined) {
    const decompress = DECOMPRESS[job.compression];
    if (decompress === undefined)
      throw dieError(`pve-sim does not model '${job.compression}' decompression`);
    data = decompress(data);
  }
  if (job.checksum !== undefined) {
    const got = createHash(job.checksum.algorithm).update(data).digest("hex");
    if (got !== job.checksum.value.toLowerCase()) {
      ctx.log("calculating checksum...");
      throw dieError(`checksum mismatch: got '${got}' != expect '${job.checksum.value}'`);
    }
    ctx.log("calculating checksum...OK, checksum verified");
  }
  await ctx.wait(1);
  sim.cluster.putVolume(job.node, {
    volid: `${job.storage}:${job.volname}`,
    storage: job.storage,
    content: job.content,
    format: job.format,
    size: data.length,
    ctime: Math.floor(Date.now() / 1000),
    checksums: fileDigests(data),
    ...(job.content === "iso" && data.length <= sim.options.maxRetainedFileBytes ? { data } : {}),
  });
  sim.changed();
  ctx.log(`download of '${job.url}' to '${job.dest}' finished`);
}

/** download_url's synchronous checks, in PVE's order. */
function prepare(sim: SimContext, params: Params): Download {
  const features = templateFeatures(sim.options.profile.pveVersion);
  // The content types depend on the release, so they are checked here, not in the route schema.
  validateParams(
    { content: params["content"] ?? "" },
    { content: fileParams(features.uploadContents).content },
  );
  checkChecksumPair(params);
  const node = String(params["node"]);
  const storage = String(params["storage"]);
  const content = String(params["content"]);
  const def = storageOrDie(sim, node, storage);
  if (!FILE_BASED.has(def.type))
    throw dieError(`can't upload to storage type '${def.type}', not a file based storage!`);
  if (!def.content.includes(content))
    throw dieError(`storage '${storage}' is not configured for content-type '${content}'`);
  const file = storedFile(content, String(params["filename"]), features.importExtensions);
  const algorithm = params["checksum-algorithm"];
  return {
    node,
    storage,
    content,
    url: String(params["url"]),
    volname: file.volname,
    format: file.format,
    dest: volumePath(def, file.volname),
    checksum:
      algorithm === undefined
        ? undefined
        : { algorithm: String(algorithm), value: String(params["checksum"]) },
    compression: params["compression"] === undefined ? undefined : String(params["compression"]),
    verifyCertificates: params["verify-certificates"] !== 0,
  };
}

export const downloadUrlRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/storage/{storage}/download-url",
    params: {
      ...fileParams(ALL_CONTENTS),
      url: { type: "string", pattern: /^https?:\/\/.*/ },
      compression: { type: "string", optional: true, enum: COMPRESSIONS },
      "verify-certificates": { type: "boolean", optional: true },
    },
    permission: downloadPermission,
    handler: ({ sim, tokenId, params }) => {
      const job = prepare(sim, params);
      const filename = job.volname.slice(job.volname.indexOf("/") + 1);
      return sim.tasks.start(job.node, "download", filename, tokenId, (ctx) =>
        download(sim, job, ctx),
      ).upid;
    },
  },
];
