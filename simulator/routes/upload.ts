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
  type Route,
} from "../http/index.js";
import { storageOrDie, volumePath } from "./storage.js";

const FILE_BASED = new Set(["dir", "nfs", "cifs", "cephfs", "glusterfs", "btrfs"]);
const ALGORITHMS = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"];

const UPLOAD_PARAMS = {
  node: NODE,
  storage: STORAGE,
  content: { type: "string", enum: ["iso", "vztmpl", "import"] },
  filename: { type: "string", maxLength: 255 },
  checksum: { type: "string", optional: true },
  "checksum-algorithm": { type: "string", optional: true, enum: ALGORITHMS },
} as const;

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
      const checked = validateParams(
        {
          ...query,
          ...body.fields,
          filename: file.filename,
          node: String(params["node"]),
          storage: String(params["storage"]),
        },
        UPLOAD_PARAMS,
      );
      const node = String(checked["node"]);
      const storage = String(checked["storage"]);
      const content = String(checked["content"]);
      // Directory parts are stripped and unusual characters replaced, as PVE does.
      const filename = (String(checked["filename"]).split(/[/\\]/).pop() ?? "").replace(
        /[^a-zA-Z0-9_.-]/g,
        "_",
      );
      if (content === "iso" && !/\.(iso|img)$/i.test(filename))
        throw paramError({ filename: "wrong file extension" });
      if (content === "vztmpl" && !/\.tar\.([gx]z|zst)$/i.test(filename))
        throw paramError({ filename: "wrong file extension" });
      const algorithm = checked["checksum-algorithm"];
      const checksum = checked["checksum"];
      if ((algorithm === undefined) !== (checksum === undefined)) {
        throw paramError(
          algorithm === undefined
            ? { "checksum-algorithm": "'checksum-algorithm' is required" }
            : { checksum: "'checksum' is required" },
        );
      }
      const def = storageOrDie(sim, node, storage);
      if (!FILE_BASED.has(def.type)) throw dieError(`can't upload to storage type '${def.type}'`);
      if (!def.content.includes(content))
        throw dieError(`storage '${storage}' does not support '${content}' content`);
      const volname = `${content === "iso" ? "iso" : content === "vztmpl" ? "vztmpl" : "import"}/${filename}`;
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
          format: content === "iso" ? "iso" : content === "vztmpl" ? "tgz" : "raw",
          size: file.size,
          ctime: Math.floor(Date.now() / 1000),
          ...(file.data === undefined ? {} : { data: file.data }),
        });
        ctx.log("finished file import successfully");
        sim.changed();
      }).upid;
    },
  },
];
