/** `3145728` → `{ value: 3, power: 2 }`: the largest power of 1024 below the size, for display. */
export function scaleBytes(bytes: number): { value: number; power: number } {
  let value = bytes;
  let power = 0;
  while (value >= 1024 && power < 4) {
    value /= 1024;
    power += 1;
  }
  return { value, power };
}

/** `2G` → bytes; bare numbers are bytes, as in PVE's parse_size (resize, drive `size=`). */
export function sizeToBytes(size: string): number {
  const match = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(size);
  if (match === null) return 0;
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[match[2] ?? ""] ?? 1;
  return Math.round(Number(match[1]) * unit);
}
