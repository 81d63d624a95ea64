/**
 * Content-addressed seed file names: `pp-<owner>-<12 hex of sha256(iso)>.iso`. The hash makes an
 * unchanged seed recognisable (no second upload); the owner lets a sweep find the seeds of a VM
 * that no longer exists. PVE accepts ISO names of `[-_.A-Za-z0-9]` ending in `.iso`.
 */
import { createHash } from "node:crypto";

const SEED_PREFIX = "pp";
const OWNER = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
const NAME = /^pp-([a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?)-([0-9a-f]{12})\.iso$/;

/** The file name for `bytes` owned by `owner` (1 to 48 of a-z 0-9 -, no dash at either end). */
export function seedFileName(owner: string, bytes: Uint8Array): string {
  if (!OWNER.test(owner)) {
    throw new RangeError(
      `seed owner ${JSON.stringify(owner)} must be 1 to 48 of a-z 0-9 -, not starting or ending with -`,
    );
  }
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  return `${SEED_PREFIX}-${owner}-${hash}.iso`;
}

/**
 * Reads a seed name back, from a bare file name or a PVE volid (`local:iso/pp-….iso`).
 * Undefined for anything that is not one of ours.
 */
export function parseSeedName(volid: string): { owner: string; hash: string } | undefined {
  const slash = volid.lastIndexOf("/");
  const file = volid.includes(":") ? (slash === -1 ? undefined : volid.slice(slash + 1)) : volid;
  if (file === undefined) return undefined;
  if (volid.includes(":") && !/^[^:/]+:iso\//.test(volid)) return undefined;
  const match = NAME.exec(file);
  if (!match?.[1] || !match[2]) return undefined;
  return { owner: match[1], hash: match[2] };
}
