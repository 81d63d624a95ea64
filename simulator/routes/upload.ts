import { createHash } from "node:crypto";
import { perm, storagePath } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { boundaryOf, readMultipart } from "../http/multipart.js";
import {
  dieError,
  NODE,
  paramError,
  PveError,
  STORAGE,
  validateParams,
  type Params,
  type Route,
} from "../http/index.js";
import { templateFeatures } from "../model/pve-features.js";
import {
  CHECKSUM_ALGORITHMS,
  FILE_BASED,
  fileDigests,
  storedFile,
  volumePath,
} from "../model/storage-files.js";
import { storageOrDie } from "./storage.js";

/** The parameters upload and download-url share (the file's content type, name and checksum). */
export function fileParams(contents: readonly string[]) {
  return {
    node: NODE,
    storage: STORAGE,
    content: { type: "string", enum: contents },
    filename: { type: "string", maxLength: 255 },
    checksum: { type: "string", optional: true },
    "checksum-algorithm": { type: "string", optional: true, enum: CHECKSUM_ALGORITHMS },
  } as const;
}

/** `checksum` and `checksum-algorithm` each require the other (PVE's `requires`). */
export function checkChecksumPair(params: Params): void {
  const algorithm = params["checksum-algorithm"];
  const checksum = params["checksum"];
  if ((algorithm === undefined) !== (checksum === undefined)) {
    throw paramError(
      algorithm === undefined
        ? { "checksum-algorithm": "'checksum-algorithm' is required" }
        : { checksum: "'checksum' is required" },
    );
  }
}

export const uploadRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/nodes/{node}/storage/{storage}/upload",
    params: { node: NODE, storage: STORAGE },
    // Datastore.AllocateTemplate is checked in the HTTP layer, before the body is read.
    permission: perm("Datastore.AllocateTemplate", storagePath),
    streamsBody: true,
    handler: async ({ sim, tokenId, params, req }) => {
      const boundary = boundaryOf(req.headers["content-type"]);
      if (boundary === undefined)
        throw new PveError(400, "wrong content type for upload (need multipart/form-data)");
      const body = await readMultipart(req, boundary, sim.options.maxRetainedFileBytes);
      const file = body.file;
      if (file === undefined)
        throw paramError({ filename: "property is missing and it is not optional" });
      if (file.field !== "filename")
        throw new PveError(
          400,
          `wrong field name '${file.field}' for file upload, expected 'filename'`,
        );
      const query = Object.fromEntries(new URL(req.url ?? "/", "http://sim").searchParams);
      const features = templateFeatures(sim.options.profile.pveVersion);
      const checked = validateParams(
        {
          ...query,
          ...body.fields,
          filename: file.filename,
          node: String(params["node"]),
          storage: String(params["storage"]),
        },
        fileParams(features.uploadContents),
      );
      const node = String(checked["node"]);
      const storage = String(checked["storage"]);
      const content = String(checked["content"]);
      const { filename, volname, format } = storedFile(
        content,
        String(checked["filename"]),
        features.importExtensions,
      );
      checkChecksumPair(checked);
      const algorithm = checked["checksum-algorithm"];
      const checksum = checked["checksum"];
      const def = storageOrDie(sim, node, storage);
      if (!FILE_BASED.has(def.type)) throw dieError(`can't upload to storage type '${def.type}'`);
      if (!def.content.includes(content))
        throw dieError(`storage '${storage}' does not support '${content}' content`);
      const target = volumePath(def, volname);
      return sim.tasks.start(node, "imgcopy", "", tokenId, async (ctx) => {
        const tmp = `/var/tmp/pveupload-${createHash("md5").update(filename).digest("hex")}`;
        ctx.log(`starting file import from: ${tmp}`);
        if (algorithm !== undefined && checksum !== undefined) {
          ctx.log("calculating checksum...");
          const got =
            file.data === undefined
              ? ""
              : createHash(String(algorithm)).update(file.data).digest("hex");
          if (got !== String(checksum).toLowerCase())
            throw dieError(`checksum mismatch: got '${got}' != expect '${checksum}'`);
          ctx.log("checksum verified");
        }
        ctx.log(`target node: ${node}`);
        ctx.log(`target file: ${target}`);
        ctx.log(`file size is: ${file.size}`);
        await ctx.wait(1);
        ctx.log(`command: cp -- ${tmp} ${target}`);
        // Existing files are silently overwritten.
        sim.cluster.putVolume(node, {
          volid: `${storage}:${volname}`,
          storage,
          content,
          format,
          size: file.size,
          ctime: Math.floor(Date.now() / 1000),
          ...(file.data === undefined
            ? {}
            : { data: file.data, checksums: fileDigests(file.data) }),
        });
        ctx.log("finished file import successfully");
        sim.changed();
      }).upid;
    },
  },
];
