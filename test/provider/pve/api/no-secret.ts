import { inspect } from "node:util";
import { expect } from "vitest";

/** Asserts `secret` appears in no message, stack, JSON or inspection of `error` and its causes. */
export function expectNoSecret(error: unknown, secret: string): void {
  const chain: unknown[] = [];
  for (
    let e: unknown = error;
    e !== undefined && e !== null;
    e = (e as { cause?: unknown }).cause
  ) {
    chain.push(e);
  }
  expect(chain.length).toBeGreaterThan(0);
  for (const e of chain) {
    for (const text of [
      String((e as Error).message),
      String((e as Error).stack),
      JSON.stringify(e),
      inspect(e, { depth: 10, showHidden: true }),
    ]) {
      expect(text).not.toContain(secret);
    }
  }
}
