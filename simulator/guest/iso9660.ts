/**
 * A small ISO 9660 reader, just enough for a NoCloud seed: the volume label and the files of the
 * root directory. It prefers the Joliet supplementary descriptor (UCS-2 names) when present and
 * falls back to the primary descriptor (names lower-cased, `;1` and a trailing dot removed, as
 * Linux shows them). It is written independently of the provider's ISO writer on purpose.
 */
const SECTOR = 2048;

export interface IsoImage {
  readonly volumeId: string;
  readonly files: ReadonlyMap<string, Buffer>;
}

export class IsoError extends Error {}

function descriptor(iso: Buffer, type: number, joliet: boolean): Buffer | undefined {
  for (let sector = 16; (sector + 1) * SECTOR <= iso.length; sector += 1) {
    const d = iso.subarray(sector * SECTOR, (sector + 1) * SECTOR);
    if (d.toString("latin1", 1, 6) !== "CD001")
      throw new IsoError("not an ISO 9660 image (no CD001 signature)");
    const t = d[0];
    if (t === 255) return undefined;
    if (t !== type) continue;
    // Joliet escape sequences: %/@, %/C, %/E (UCS-2 levels 1-3).
    const escape = d.toString("latin1", 88, 91);
    if (!joliet || ["%/@", "%/C", "%/E"].includes(escape)) return d;
  }
  return undefined;
}

function name(record: Buffer, joliet: boolean): string {
  const length = record[32] ?? 0;
  const raw = record.subarray(33, 33 + length);
  if (joliet) {
    let text = "";
    for (let i = 0; i + 1 < raw.length; i += 2) text += String.fromCharCode(raw.readUInt16BE(i));
    return text.replace(/;\d+$/, "");
  }
  return raw.toString("latin1").replace(/;\d+$/, "").replace(/\.$/, "").toLowerCase();
}

/** Parses the image; throws IsoError with a reason when it is not readable. */
export function readIso(iso: Buffer): IsoImage {
  if (iso.length < 17 * SECTOR) throw new IsoError("image too small for an ISO 9660 file system");
  const joliet = descriptor(iso, 2, true);
  const primary = descriptor(iso, 1, false);
  const desc = joliet ?? primary;
  if (desc === undefined) throw new IsoError("no primary volume descriptor");
  const isJoliet = desc === joliet;
  const volumeId = isJoliet
    ? (primary ?? desc).toString("latin1", 40, 72).trim()
    : desc.toString("latin1", 40, 72).trim();
  const root = desc.subarray(156, 190);
  const extent = root.readUInt32LE(2);
  const size = root.readUInt32LE(10);
  if (extent * SECTOR + size > iso.length) throw new IsoError("root directory outside the image");
  const dir = iso.subarray(extent * SECTOR, extent * SECTOR + size);
  const files = new Map<string, Buffer>();
  let offset = 0;
  while (offset < dir.length) {
    const length = dir[offset] ?? 0;
    if (length === 0) {
      // Records never cross sector boundaries: skip to the next sector.
      offset = (Math.floor(offset / SECTOR) + 1) * SECTOR;
      continue;
    }
    const record = dir.subarray(offset, offset + length);
    offset += length;
    const flags = record[25] ?? 0;
    const nameLength = record[32] ?? 0;
    if ((flags & 2) !== 0 || (nameLength === 1 && (record[33] === 0 || record[33] === 1))) continue;
    const start = record.readUInt32LE(2) * SECTOR;
    const bytes = record.readUInt32LE(10);
    if (start + bytes > iso.length) throw new IsoError(`file extent outside the image`);
    files.set(name(record, isJoliet), iso.subarray(start, start + bytes));
  }
  return { volumeId, files };
}
