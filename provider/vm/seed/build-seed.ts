/**
 * The whole seed: documents → ISO → content-addressed name. Pure. Inputs are expected to have
 * passed `validateCloudInit`; the size limit is checked again here because the generated
 * user-data can outgrow what was checked.
 */
import { MAX_DOCUMENT_BYTES, type CloudInit } from "./seed-inputs.js";
import { buildIso, ISO_PADDING_BYTES } from "./iso9660.js";
import { renderSeedDocuments, type SeedDocuments, type SeedIdentity } from "./nocloud.js";
import { seedFileName } from "./seed-name.js";

/** The whole ISO stays under 1 MiB (3 × 64 KiB of documents plus 300 KiB of padding fit). */
const MAX_SEED_BYTES = 1024 * 1024;

export interface Seed {
  /** Named after the whole image, padding included. */
  readonly filename: string;
  /** The image without its padding: `zeroTail` zero bytes complete it. */
  readonly bytes: Uint8Array;
  readonly zeroTail: number;
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
  // The padding is five sixths of the image and all zeros: sent from one shared buffer instead of
  // held per VM until its upload's turn (15 MB with 50 creates in flight).
  return {
    filename: seedFileName(identity.owner, bytes),
    bytes: bytes.slice(0, bytes.length - ISO_PADDING_BYTES),
    zeroTail: ISO_PADDING_BYTES,
    documents,
  };
}
