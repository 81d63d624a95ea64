import { describe, expect, it } from "vitest";
import { runRound, VMID_RANGE } from "./support/two-stacks";

describe(`two stacks creating at once in VMIDs ${VMID_RANGE.min}–${VMID_RANGE.max}`, () => {
  // One round in CI; `npm run bench:stacks` runs many.
  it.each([1])(
    "round %i: no collision, no failure, no cross-adoption, and destroy leaves nothing",
    async (round) => {
      const result = await runRound(round);
      expect(result.problems).toEqual([]);
    },
  );
});
