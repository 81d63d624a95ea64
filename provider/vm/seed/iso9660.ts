/**
 * A deterministic ISO 9660 image writer for NoCloud seeds: one root directory of files, with
 * Joliet and Rock Ridge so every reader (the Linux kernel, blkid, libisofs, 7-Zip) sees the
 * names exactly as given. Pure: bytes in, bytes out. The same files give the same bytes,
 * because every timestamp is fixed and every list is sorted.
 *
 * Layout (2048-byte sectors):
 *   0-15 system area (zero) · 16 primary descriptor · 17 Joliet descriptor · 18 terminator ·
 *   19/20 primary L/M path tables · 21/22 Joliet L/M path tables · 23 Rock Ridge `ER`
 *   continuation · primary root directory · Joliet root directory · file data, in name order ·
 *   150 zero sectors of padding.
 * Both directory trees point at the same file extents.
 */
import {
  assertValidName,
  compareJolietNames,
  compareShortNames,
  jolietName,
  shortNames,
} from "./iso-names.js";
import { ceEntry, DIR_MODE, erEntry, FILE_MODE, nmEntry, pxEntry, spEntry } from "./rock-ridge.js";

export interface IsoFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface IsoOptions {
  /**
   * Defaults to `cidata`, lower case, in both the primary and the Joliet descriptor: that is
   * what `genisoimage -volid cidata` (cloud-init's documented recipe) writes. blkid reports the
   * Joliet label when there is one; cloud-init before 17.x looked only for `LABEL=cidata`, later
   * ones for either case. Strict ISO 9660 wants upper-case d-characters here, but every reader
   * takes the bytes as they are, so matching what cloud-init looks for wins.
   */
  readonly volumeId?: string;
}

const SECTOR = 2048;
const FIRST_DIR_SECTOR = 24;
const CE_SECTOR = 23;
const MAX_FILE_BYTES = 0xffff_ffff;
/**
 * 300 KiB of trailing zeros, counted in the volume size, as genisoimage (`-pad`) and xorriso
 * (`-padding 300k`) both add by default: some Linux CD-ROM drivers read ahead past the last
 * file and turn the short read into an I/O error on that file.
 */
const PAD_SECTORS = 150;
/** The padding's length: the last bytes of every image this module builds are this many zeros. */
export const ISO_PADDING_BYTES = PAD_SECTORS * SECTOR;
/** 1970-01-01 00:00:00 UTC: the directory record form (years since 1900, month, day, ...). */
const RECORD_DATE = [70, 1, 1, 0, 0, 0, 0];
/** The same instant in the descriptor form: 16 digits and a zero GMT offset. */
const VOLUME_DATE = "1970010100000000";

interface Entry {
  readonly name: string;
  readonly bytes: Uint8Array;
  lba: number;
}

/** Builds the image. Throws RangeError on an invalid or duplicate name or a volume id over 16. */
export function buildIso(files: readonly IsoFile[], options: IsoOptions = {}): Uint8Array {
  const volumeId = options.volumeId ?? "cidata";
  if (!/^[A-Za-z0-9_]{1,16}$/.test(volumeId)) {
    throw new RangeError(
      `ISO volume id ${JSON.stringify(volumeId)} must be 1 to 16 of A-Z a-z 0-9 _`,
    );
  }
  const entries: Entry[] = files
    .map((f) => ({ name: f.name, bytes: f.bytes, lba: 0 }))
    .sort((a, b) => compareJolietNames(a.name, b.name));
  for (const [i, entry] of entries.entries()) {
    assertValidName(entry.name);
    if (entries[i + 1]?.name === entry.name) {
      throw new RangeError(`ISO file name ${JSON.stringify(entry.name)} appears twice`);
    }
    if (entry.bytes.length > MAX_FILE_BYTES) {
      throw new RangeError(`ISO file ${entry.name} is larger than 4 GiB`);
    }
  }

  const shorts = shortNames(entries.map((e) => e.name));
  const primary = entries
    .map((entry, i) => ({ entry, id: `${shorts[i] ?? ""};1` }))
    .sort((a, b) => compareShortNames(a.id.slice(0, -2), b.id.slice(0, -2)));
  const primaryRecords = [rootSelfPrimaryLength(), rootParentPrimaryLength()].concat(
    primary.map((p) => primaryFileLength(p.id, p.entry.name)),
  );
  const jolietRecords = [34, 34].concat(entries.map((e) => recordLength(e.name.length * 2, 0)));
  const primaryDirSize = directorySize(primaryRecords);
  const jolietDirSize = directorySize(jolietRecords);

  const primaryDirLba = FIRST_DIR_SECTOR;
  const jolietDirLba = primaryDirLba + primaryDirSize / SECTOR;
  let next = jolietDirLba + jolietDirSize / SECTOR;
  for (const entry of entries) {
    entry.lba = entry.bytes.length === 0 ? 0 : next;
    next += Math.ceil(entry.bytes.length / SECTOR);
  }
  const totalSectors = next + PAD_SECTORS;
  const image = new Uint8Array(totalSectors * SECTOR);
  const view = new DataView(image.buffer);
  const w = new Writer(image, view);

  const er = erEntry();
  image.set(er, CE_SECTOR * SECTOR);

  // Directories.
  const primaryDir = new DirectoryWriter(w, primaryDirLba);
  primaryDir.add(
    primaryDirLba,
    primaryDirSize,
    2,
    [0],
    [...spEntry(), ...pxEntry(DIR_MODE, 2), ...ceEntry(CE_SECTOR, 0, er.length)],
  );
  primaryDir.add(primaryDirLba, primaryDirSize, 2, [1], pxEntry(DIR_MODE, 2));
  for (const { entry, id } of primary) {
    primaryDir.add(entry.lba, entry.bytes.length, 0, ascii(id), [
      ...pxEntry(FILE_MODE, 1),
      ...nmEntry(entry.name),
    ]);
  }
  const jolietDir = new DirectoryWriter(w, jolietDirLba);
  jolietDir.add(jolietDirLba, jolietDirSize, 2, [0], []);
  jolietDir.add(jolietDirLba, jolietDirSize, 2, [1], []);
  for (const entry of entries) {
    jolietDir.add(entry.lba, entry.bytes.length, 0, Array.from(jolietName(entry.name)), []);
  }

  // Path tables: one entry each (the root), 10 bytes.
  for (const [lLba, mLba, dirLba] of [
    [19, 20, primaryDirLba],
    [21, 22, jolietDirLba],
  ] as const) {
    writePathTable(image, view, lLba, dirLba, true);
    writePathTable(image, view, mLba, dirLba, false);
  }

  // Volume descriptors.
  w.descriptor(16, 1, {
    volumeId,
    totalSectors,
    pathL: 19,
    pathM: 20,
    rootLba: primaryDirLba,
    rootSize: primaryDirSize,
    joliet: false,
  });
  w.descriptor(17, 2, {
    volumeId,
    totalSectors,
    pathL: 21,
    pathM: 22,
    rootLba: jolietDirLba,
    rootSize: jolietDirSize,
    joliet: true,
  });
  image.set([255, ...ascii("CD001"), 1], 18 * SECTOR);

  for (const entry of entries) image.set(entry.bytes, entry.lba * SECTOR);
  return image;
}

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

/** ECMA-119 §9.1: 33 fixed bytes, the identifier, a pad to even, then System Use, even overall. */
function recordLength(idLength: number, systemUse: number): number {
  const base = 33 + idLength + (idLength % 2 === 0 ? 1 : 0);
  const total = base + systemUse;
  return total + (total % 2);
}

function rootSelfPrimaryLength(): number {
  return recordLength(1, spEntry().length + pxEntry(0, 0).length + 28);
}

function rootParentPrimaryLength(): number {
  return recordLength(1, pxEntry(0, 0).length);
}

function primaryFileLength(id: string, name: string): number {
  return recordLength(id.length, pxEntry(0, 0).length + nmEntry(name).length);
}

/** Records may not cross a sector boundary (§6.8.1.1): a record that would is moved on. */
function directorySize(lengths: readonly number[]): number {
  let pos = 0;
  for (const length of lengths) {
    if ((pos % SECTOR) + length > SECTOR) pos = Math.ceil(pos / SECTOR) * SECTOR;
    pos += length;
  }
  return Math.ceil(pos / SECTOR) * SECTOR;
}

function writePathTable(
  image: Uint8Array,
  view: DataView,
  lba: number,
  dirLba: number,
  little: boolean,
): void {
  const at = lba * SECTOR;
  image[at] = 1; // identifier length
  view.setUint32(at + 2, dirLba, little);
  view.setUint16(at + 6, 1, little); // parent: itself
  image[at + 8] = 0; // root identifier
}

interface DescriptorFields {
  readonly volumeId: string;
  readonly totalSectors: number;
  readonly pathL: number;
  readonly pathM: number;
  readonly rootLba: number;
  readonly rootSize: number;
  readonly joliet: boolean;
}

class Writer {
  readonly image: Uint8Array;
  readonly view: DataView;

  constructor(image: Uint8Array, view: DataView) {
    this.image = image;
    this.view = view;
  }

  both16(at: number, value: number): void {
    this.view.setUint16(at, value, true);
    this.view.setUint16(at + 2, value, false);
  }

  both32(at: number, value: number): void {
    this.view.setUint32(at, value, true);
    this.view.setUint32(at + 4, value, false);
  }

  /** A text field, space-padded: ASCII for the primary, UCS-2 big-endian for Joliet. */
  text(at: number, size: number, value: string, joliet: boolean): void {
    if (joliet) {
      for (let i = 0; i < size; i += 2) {
        const code = i / 2 < value.length ? value.charCodeAt(i / 2) : 0x20;
        this.view.setUint16(at + i, code, false);
      }
    } else {
      this.image.set(ascii(value.padEnd(size, " ").slice(0, size)), at);
    }
  }

  record(
    at: number,
    length: number,
    lba: number,
    size: number,
    flags: number,
    id: readonly number[],
    systemUse: readonly number[],
  ): void {
    const image = this.image;
    image[at] = length;
    this.both32(at + 2, lba);
    this.both32(at + 10, size);
    image.set(RECORD_DATE, at + 18);
    image[at + 25] = flags;
    this.both16(at + 28, 1);
    image[at + 32] = id.length;
    image.set(id, at + 33);
    image.set(systemUse, at + 33 + id.length + (id.length % 2 === 0 ? 1 : 0));
  }

  descriptor(sector: number, type: 1 | 2, f: DescriptorFields): void {
    const at = sector * SECTOR;
    const image = this.image;
    image.set([type, ...ascii("CD001"), 1], at);
    this.text(at + 8, 32, "", f.joliet); // system identifier
    this.text(at + 40, 32, f.volumeId, f.joliet);
    this.both32(at + 80, f.totalSectors);
    if (f.joliet) image.set(ascii("%/E"), at + 88); // UCS-2 level 3
    this.both16(at + 120, 1); // volume set size
    this.both16(at + 124, 1); // volume sequence number
    this.both16(at + 128, SECTOR);
    this.both32(at + 132, 10); // path table size: the root entry only
    this.view.setUint32(at + 140, f.pathL, true);
    this.view.setUint32(at + 148, f.pathM, false);
    this.record(at + 156, 34, f.rootLba, f.rootSize, 2, [0], []);
    this.text(at + 190, 128, "", f.joliet); // volume set
    this.text(at + 318, 128, "", f.joliet); // publisher
    this.text(at + 446, 128, "", f.joliet); // data preparer
    this.text(at + 574, 128, "PULUMI-PROXMOX", f.joliet); // application
    this.text(at + 702, 36, "", f.joliet); // copyright file (37 bytes; UCS-2 fills 36)
    this.text(at + 739, 36, "", f.joliet); // abstract file
    this.text(at + 776, 36, "", f.joliet); // bibliographic file
    if (!f.joliet) {
      for (const off of [702, 739, 776]) image[at + off + 36] = 0x20;
    }
    for (const off of [813, 830]) image.set(ascii(VOLUME_DATE), at + off);
    for (const off of [847, 864]) image.set(ascii("0000000000000000"), at + off); // not specified
    image[at + 881] = 1; // file structure version
  }
}

/** Appends records to one directory's extent, moving to the next sector instead of crossing. */
class DirectoryWriter {
  private readonly w: Writer;
  private pos: number;

  constructor(w: Writer, lba: number) {
    this.w = w;
    this.pos = lba * SECTOR;
  }

  add(
    lba: number,
    size: number,
    flags: number,
    id: readonly number[],
    systemUse: readonly number[],
  ): void {
    const length = recordLength(id.length, systemUse.length);
    if ((this.pos % SECTOR) + length > SECTOR) this.pos = Math.ceil(this.pos / SECTOR) * SECTOR;
    this.w.record(this.pos, length, lba, size, flags, id, systemUse);
    this.pos += length;
  }
}
