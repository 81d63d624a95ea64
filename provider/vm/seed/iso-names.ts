/**
 * File identifiers for the three name spaces of a seed ISO: plain ISO 9660 (level 1, 8.3
 * upper-case), Joliet (UCS-2) and Rock Ridge (the name as given). Pure helpers for `iso9660.ts`.
 */

/** Names we accept: what a NoCloud seed needs, and safe in all three name spaces. */
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Joliet stores at most 64 UCS-2 characters per identifier (128 bytes). */
const MAX_NAME_LENGTH = 64;

/** Throws when `name` cannot be stored in all three name spaces unchanged. */
export function assertValidName(name: string): void {
  if (!NAME_PATTERN.test(name) || name === "." || name === "..") {
    throw new RangeError(
      `ISO file name ${JSON.stringify(name)} is invalid: use 1 to ${MAX_NAME_LENGTH} of A-Z a-z 0-9 . _ -`,
    );
  }
}

/** Level 1 d-characters: upper-case letters, digits, underscore. */
function toDChars(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
}

/**
 * The 8.3 identifier of each name, `NAME.EXT;1`, unique within the list. A name that would
 * collide gets its stem's tail replaced by a counter (`USER_D01`). `names` must already be in
 * the stable order the caller writes them in, so the same list always gets the same result.
 */
export function shortNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf(".");
    const stemSource = dot > 0 ? name.slice(0, dot) : name;
    const extSource = dot > 0 ? name.slice(dot + 1) : "";
    const stem = toDChars(stemSource).slice(0, 8) || "_";
    const ext = toDChars(extSource).slice(0, 3);
    let candidate = `${stem}.${ext}`;
    for (let n = 1; taken.has(candidate); n++) {
      const counter = String(n);
      candidate = `${stem.slice(0, 8 - counter.length)}${counter}.${ext}`;
    }
    taken.add(candidate);
    return candidate;
  });
}

/** The Joliet identifier: UCS-2 big-endian, no `;1` (readers differ on stripping it). */
export function jolietName(name: string): Uint8Array {
  const out = new Uint8Array(name.length * 2);
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    out[i * 2] = code >> 8;
    out[i * 2 + 1] = code & 0xff;
  }
  return out;
}

/**
 * ECMA-119 §9.3 order for level 1 identifiers: by stem, then extension, each compared as if
 * padded with spaces. Our versions are all `;1`, so the version tie-break never applies.
 */
export function compareShortNames(a: string, b: string): number {
  const [aStem = "", aExt = ""] = a.split(".");
  const [bStem = "", bExt = ""] = b.split(".");
  return comparePadded(aStem, bStem) || comparePadded(aExt, bExt);
}

function comparePadded(a: string, b: string): number {
  const length = Math.max(a.length, b.length);
  const pa = a.padEnd(length, " ");
  const pb = b.padEnd(length, " ");
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

/** Joliet order: by the UCS-2 code units, which for our ASCII names is plain code-unit order. */
export function compareJolietNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
