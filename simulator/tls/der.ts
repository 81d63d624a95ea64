/** A minimal DER (ASN.1) writer: just the types an X.509 certificate needs. */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
export const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
/** Context-specific constructed tag `[n]` (explicit tagging). */
export const explicit = (n: number, item: Buffer): Buffer => tlv(0xa0 + n, item);
export const octetString = (data: Buffer): Buffer => tlv(0x04, data);
export const bitString = (data: Buffer): Buffer => tlv(0x03, Buffer.from([0]), data);
export const utf8 = (text: string): Buffer => tlv(0x0c, Buffer.from(text, "utf8"));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps it positive). */
export function integer(bytes: Buffer | number): Buffer {
  let data = typeof bytes === "number" ? Buffer.from([bytes]) : bytes;
  let start = 0;
  while (start < data.length - 1 && data[start] === 0) start += 1;
  data = data.subarray(start);
  if ((data[0] ?? 0) & 0x80) data = Buffer.concat([Buffer.from([0]), data]);
  return tlv(0x02, data);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const bytes = [(parts[0] ?? 0) * 40 + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime before 2050, GeneralizedTime after, as RFC 5280 requires. */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, "latin1"))
    : tlv(0x18, Buffer.from(`${iso}Z`, "latin1"));
}
