import { createHash, randomBytes } from "node:crypto";

/**
 * SHA-256 crypt (`$5$<salt>$<hash>`, Ulrich Drepper's "Unix crypt using SHA-256"), the hash
 * pve-common's `PVE::Tools::encrypt_pw` asks glibc's crypt for: 5000 rounds, an 8-character
 * salt (a base64 SHA-1 prefix with `+` replaced by `X`).
 */

const ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ROUNDS = 5000;

const sha256 = (...parts: Buffer[]): Buffer => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** `digest` repeated to `length` bytes. */
function stretch(digest: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) out[i] = digest[i % digest.length] ?? 0;
  return out;
}

/** Three bytes as `n` characters of crypt's base64, low bits first. */
function b64From24(b2: number, b1: number, b0: number, n: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = "";
  for (let i = 0; i < n; i += 1) {
    out += ITOA64[w & 0x3f] ?? "";
    w >>= 6;
  }
  return out;
}

/** The byte triples of the final digest, in the order the algorithm encodes them. */
const ORDER = [
  [0, 10, 20],
  [21, 1, 11],
  [12, 22, 2],
  [3, 13, 23],
  [24, 4, 14],
  [15, 25, 5],
  [6, 16, 26],
  [27, 7, 17],
  [18, 28, 8],
  [9, 19, 29],
] as const;

/** `crypt(password, "$5$<salt>$")`. */
export function sha256Crypt(password: string, salt: string): string {
  const p = Buffer.from(password, "utf8");
  const s = Buffer.from(salt.slice(0, 16), "utf8");
  const b = sha256(p, s, p);
  const a = createHash("sha256").update(p).update(s).update(stretch(b, p.length));
  for (let len = p.length; len > 0; len >>= 1) a.update(len & 1 ? b : p);
  let c = a.digest();
  const pBytes = stretch(sha256(...Array.from({ length: p.length }, () => p)), p.length);
  const sBytes = stretch(sha256(...Array.from({ length: 16 + (c[0] ?? 0) }, () => s)), s.length);
  for (let i = 0; i < ROUNDS; i += 1) {
    const round = createHash("sha256");
    round.update(i % 2 === 1 ? pBytes : c);
    if (i % 3 !== 0) round.update(sBytes);
    if (i % 7 !== 0) round.update(pBytes);
    round.update(i % 2 === 1 ? c : pBytes);
    c = round.digest();
  }
  const byte = (i: number): number => c[i] ?? 0;
  const encoded =
    ORDER.map(([x, y, z]) => b64From24(byte(x), byte(y), byte(z), 4)).join("") +
    b64From24(0, byte(31), byte(30), 3);
  return `$5$${s.toString("utf8")}$${encoded}`;
}

/** encrypt_pw: a new salt each time. */
export function encryptPassword(password: string): string {
  const salt = randomBytes(6).toString("base64").slice(0, 8).replace(/\+/g, "X");
  return sha256Crypt(password, salt);
}

/**
 * update_vm's rule for `cipassword`: a value that already is a crypt hash (`$1$`, `$5$`, `$6$`,
 * `$2a$`, `$2y$`) is stored as sent, anything else is hashed.
 */
export function hashPassword(value: string): string {
  return /^\$(?:[156]|2[ay])(\$.+){2}/.test(value) ? value : encryptPassword(value);
}
