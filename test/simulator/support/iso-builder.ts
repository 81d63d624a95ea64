/**
 * A test-only ISO 9660 writer (root directory only), independent of the simulator's reader and
 * of the provider's writer: primary descriptor with 8.3-style names, optional Joliet SVD.
 */
const SECTOR = 2048;

function both16(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt16LE(n, 0);
  b.writeUInt16BE(n, 2);
  return b;
}

function both32(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(n, 0);
  b.writeUInt32BE(n, 4);
  return b;
}

function record(name: Buffer, extent: number, size: number, dir: boolean): Buffer {
  const length = 33 + name.length + (name.length % 2 === 0 ? 1 : 0);
  const r = Buffer.alloc(length);
  r[0] = length;
  both32(extent).copy(r, 2);
  both32(size).copy(r, 10);
  r[25] = dir ? 2 : 0;
  both16(1).copy(r, 28);
  r[32] = name.length;
  name.copy(r, 33);
  return r;
}

function descriptor(
  type: number,
  volumeId: string,
  rootExtent: number,
  rootSize: number,
  totalSectors: number,
  joliet: boolean,
): Buffer {
  const d = Buffer.alloc(SECTOR);
  d[0] = type;
  d.write("CD001", 1, "latin1");
  d[6] = 1;
  d.write(volumeId.padEnd(32, " "), 40, "latin1");
  both32(totalSectors).copy(d, 80);
  if (joliet) d.write("%/E", 88, "latin1");
  both16(1).copy(d, 120);
  both16(1).copy(d, 124);
  both16(SECTOR).copy(d, 128);
  record(Buffer.from([0]), rootExtent, rootSize, true).copy(d, 156);
  d[881] = 1;
  return d;
}

export interface IsoOptions {
  readonly volumeId?: string;
  readonly joliet?: boolean;
  /** Primary names as written (default: upper-case 8.3 mangling like `META_DAT.;1`). */
  readonly primaryName?: (name: string) => string;
}

const mangle = (name: string): string => {
  const [base = "", ext = ""] = name
    .toUpperCase()
    .replace(/[^A-Z0-9.]/g, "_")
    .split(".");
  return `${base.slice(0, 8)}.${ext.slice(0, 3)};1`;
};

export function buildIso(files: Record<string, string | Buffer>, options: IsoOptions = {}): Buffer {
  const joliet = options.joliet ?? true;
  const entries = Object.entries(files).map(([name, content]) => ({
    name,
    data: Buffer.from(content),
  }));
  // Layout: 16 system sectors, PVD, [SVD], terminator, primary root, [joliet root], files.
  let sector = 16 + 1 + (joliet ? 1 : 0) + 1;
  const primaryRoot = sector++;
  const jolietRoot = joliet ? sector++ : 0;
  const extents = entries.map((e) => {
    const start = sector;
    sector += Math.max(1, Math.ceil(e.data.length / SECTOR));
    return start;
  });
  const total = sector;
  const image = Buffer.alloc(total * SECTOR);
  const dir = (rootExtent: number, encode: (name: string) => Buffer): Buffer => {
    const parts = [
      record(Buffer.from([0]), rootExtent, SECTOR, true),
      record(Buffer.from([1]), rootExtent, SECTOR, true),
    ];
    entries.forEach((e, i) =>
      parts.push(record(encode(e.name), extents[i] ?? 0, e.data.length, false)),
    );
    return Buffer.concat(parts);
  };
  const volumeId = options.volumeId ?? "cidata";
  descriptor(1, volumeId, primaryRoot, SECTOR, total, false).copy(image, 16 * SECTOR);
  let next = 17;
  if (joliet) {
    descriptor(2, volumeId, jolietRoot, SECTOR, total, true).copy(image, next * SECTOR);
    next += 1;
  }
  image[next * SECTOR] = 255;
  image.write("CD001", next * SECTOR + 1, "latin1");
  dir(primaryRoot, (n) => Buffer.from((options.primaryName ?? mangle)(n), "latin1")).copy(
    image,
    primaryRoot * SECTOR,
  );
  if (joliet) {
    dir(jolietRoot, (n) => Buffer.from(n, "utf16le").swap16()).copy(image, jolietRoot * SECTOR);
  }
  entries.forEach((e, i) => e.data.copy(image, (extents[i] ?? 0) * SECTOR));
  return image;
}
