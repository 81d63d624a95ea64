// The whole fault matrix: every request kind of every operation (VM and template) × every fault,
// through the provider's runtime over HTTP against the simulator. The "timeout" rows each wait
// out the client's 60 s request timeout, so they run all at once after the others.
//
//   npm run bench:faults
//   FAULT_OPERATIONS=template-create,template-delete npm run bench:faults
//
// Prints the table and the counts. Exits non-zero only when the harness cannot run.
import { afterAll, it } from "vitest";
import { closeSharedDispatchers } from "../provider/pve/api/dispatcher-registry";
import {
  applies,
  documentedRetries,
  FAULT_OPERATIONS,
  FAULTS,
  faultTargets,
  formatFaultTable,
  runFaultRow,
  type FaultOperation,
  type FaultRow,
} from "../test/reliability/support/fault-harness";

const chosen = (process.env["FAULT_OPERATIONS"]?.split(",") ?? [
  ...FAULT_OPERATIONS,
]) as FaultOperation[];

afterAll(() => closeSharedDispatchers());

it("runs every request kind × fault and prints the table", async () => {
  const docs = documentedRetries();
  const rows: FaultRow[] = [];
  const slow: Promise<FaultRow>[] = [];
  for (const operation of chosen) {
    for (const target of await faultTargets(operation)) {
      for (const fault of FAULTS.filter((f) => applies(target, f))) {
        if (fault === "timeout") continue;
        rows.push(await runFaultRow(target, fault, docs));
      }
    }
  }
  for (const operation of chosen) {
    // A task target has no request to delay: the timeout applies to requests only.
    for (const target of await faultTargets(operation)) {
      if (applies(target, "timeout")) slow.push(runFaultRow(target, "timeout", docs));
    }
  }
  rows.push(...(await Promise.all(slow)));
  console.log(`\n${formatFaultTable(rows)}\n`);
  const bad = rows.filter((r) => r.problems.length > 0);
  const unreached = rows.filter((r) => r.observed === "not reached").length;
  console.log(
    `${rows.length} rows: ${rows.length - bad.length} hold, ${bad.length} break the contract ` +
      `or leak, ${unreached} not reached`,
  );
});
