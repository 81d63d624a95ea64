// Two stacks on one 8-VMID range, both `up` at once then both `destroy` at once, many rounds.
//
//   npm run bench:stacks                 # 10 rounds
//   STACK_ROUNDS=50 npm run bench:stacks
//
// Prints each round's problems and the count of clean rounds. Exits non-zero only when the
// harness cannot run.
import { it } from "vitest";
import { runRound, VMID_RANGE } from "../test/reliability/support/two-stacks";

const rounds = Number(process.env["STACK_ROUNDS"] ?? 10);

it("runs the rounds and prints the counts", async () => {
  let clean = 0;
  for (let round = 1; round <= rounds; round++) {
    const result = await runRound(round);
    if (result.problems.length === 0) clean += 1;
    console.log(
      `round ${round}: ${result.problems.length === 0 ? "ok" : result.problems.join("; ")}`,
    );
  }
  console.log(`${clean} of ${rounds} rounds clean (VMIDs ${VMID_RANGE.min}–${VMID_RANGE.max})`);
});
