/**
 * System Use Sharing Protocol (SUSP 1.12) and Rock Ridge (RRIP 1991A) entries for the primary
 * directory records. Rock Ridge gives the kernel and `isoinfo -R` the real lower-case names and
 * POSIX modes; without it Linux falls back to Joliet, which also works, but we want both.
 */

const ER_ID = "RRIP_1991A";
const ER_DESCRIPTOR =
  "THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS";
const ER_SOURCE =
  "PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.";

/** Regular file, r--r--r--: the medium is read-only anyway. */
export const FILE_MODE = 0o100444;
/** Directory, r-xr-xr-x. */
export const DIR_MODE = 0o040555;

function ascii(text: string): number[] {
  return Array.from(text, (c) => c.charCodeAt(0));
}

function both32(value: number): number[] {
  return [
    value & 0xff,
    (value >>> 8) & 0xff,
    (value >>> 16) & 0xff,
    value >>> 24,
    value >>> 24,
    (value >>> 16) & 0xff,
    (value >>> 8) & 0xff,
    value & 0xff,
  ];
}

/** `SP`: marks SUSP in use; must be the first entry of the root's `.` record. */
export function spEntry(): number[] {
  return [...ascii("SP"), 7, 1, 0xbe, 0xef, 0];
}

/** `PX`, the 36-byte RRIP 1991A form (mode, links, uid, gid; no inode number). */
export function pxEntry(mode: number, links: number): number[] {
  return [...ascii("PX"), 36, 1, ...both32(mode), ...both32(links), ...both32(0), ...both32(0)];
}

/** `NM`: the alternate (real) name. */
export function nmEntry(name: string): number[] {
  return [...ascii("NM"), 5 + name.length, 1, 0, ...ascii(name)];
}

/** `CE`: where the rest of this record's entries continue (used for the long `ER`). */
export function ceEntry(block: number, offset: number, length: number): number[] {
  return [...ascii("CE"), 28, 1, ...both32(block), ...both32(offset), ...both32(length)];
}

/**
 * `ER`: names the extension. Linux prefers Rock Ridge over Joliet only after it has seen this,
 * and at 237 bytes it does not fit in a directory record next to `SP` and `PX`, so it lives in
 * a continuation area reached through `CE`, as mkisofs and libisofs do.
 */
export function erEntry(): number[] {
  const id = ascii(ER_ID);
  const descriptor = ascii(ER_DESCRIPTOR);
  const source = ascii(ER_SOURCE);
  const length = 8 + id.length + descriptor.length + source.length;
  return [
    ...ascii("ER"),
    length,
    1,
    id.length,
    descriptor.length,
    source.length,
    1,
    ...id,
    ...descriptor,
    ...source,
  ];
}
