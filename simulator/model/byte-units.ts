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
