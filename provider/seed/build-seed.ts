/**
 * The whole seed: documents → ISO → content-addressed name. Pure. Inputs are expected to have
 * passed `validateCloudInit`; the size limit is checked again here because the generated
 * user-data can outgrow what was checked.
 */
import { MAX_DOCUMENT_BYTES, type CloudInit } from "./inputs.js";
import { buildIso } from "./iso9660.js";
import { renderSeedDocuments, type SeedDocuments, type SeedIdentity } from "./nocloud.js";
import { seedFileName } from "./seed-name.js";

/** The whole ISO stays under 1 MiB (3 × 64 KiB of documents plus 300 KiB of padding fit). */
const MAX_SEED_BYTES = 1024 * 1024;

export interface Seed {
  readonly filename: string;
  readonly bytes: Uint8Array;
  readonly documents: SeedDocuments;
}

export class SeedTooLargeError extends RangeError {
  override readonly name = "SeedTooLargeError";
}

/**
 * Builds the seed for one VM. `owner` names the VM in the file name (see seed-name.ts);
 * throws SeedTooLargeError when a document or the image is over its limit.
 */
export function buildSeed(
  input: CloudInit,
  identity: SeedIdentity & { readonly owner: string },
): Seed {
  const documents = renderSeedDocuments(input, identity);
  const encoder = new TextEncoder();
  const files = Object.entries(documents).map(([name, text]) => ({
    name,
    bytes: encoder.encode(text),
  }));
  for (const file of files) {
    if (file.bytes.length > MAX_DOCUMENT_BYTES) {
      throw new SeedTooLargeError(
        `cloud-init ${file.name} is ${file.bytes.length} bytes, over the ${MAX_DOCUMENT_BYTES}-byte limit`,
      );
    }
  }
  const bytes = buildIso(files);
  if (bytes.length > MAX_SEED_BYTES) {
    throw new SeedTooLargeError(
      `the seed ISO is ${bytes.length} bytes, over the ${MAX_SEED_BYTES}-byte limit`,
    );
  }
  return { filename: seedFileName(identity.owner, bytes), bytes, documents };
}
