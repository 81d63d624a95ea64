import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../provider/api/dispatcher-registry";
import {
  documentedContract,
  expectedFor,
  FAULTS,
  faultTargets,
  formatFaultTable,
  runFaultRow,
  type Fault,
  type FaultOperation,
  type FaultTarget,
} from "./support/fault-harness";

/**
 * A sample of the fault matrix (the bench runs every request kind × every fault): the requests
 * that change something, each with the faults a real cluster produces there. The timeout fault
 * waits out the client's 60 s request timeout, so it runs only in the bench.
 */
const SAMPLE: [FaultOperation, RegExp, Fault[]][] = [
  ["create", /^POST .*\/clone$/, ["401", "403", "500", "595", "596", "reset"]],
  ["create", /^GET .*\/tasks\/\{qmclone\}\/status$/, ["task failure"]],
  ["create", /^POST .*\/upload$/, ["500", "reset"]],
  ["update", /^(PUT|POST) .*\/config$/, ["403", "500", "595"]],
  ["update", /^POST .*\/status\/reboot$/, ["596", "reset"]],
  ["delete", /^DELETE .*\/qemu\/\{vmid\}$/, ["403", "596", "reset"]],
];

describe("one fault on one request, through the provider's runtime over HTTP", () => {
  const targets = new Map<FaultOperation, FaultTarget[]>();
  const docs = documentedContract();
  beforeAll(async () => {
    for (const operation of new Set(SAMPLE.map(([op]) => op))) {
      targets.set(operation, await faultTargets(operation));
    }
  });
  afterAll(() => closeSharedDispatchers());

  it("finds every request kind of the sample's operations in both tables of docs/errors.md", () => {
    const kinds = [...targets.values()].flat().map((t) => t.kind);
    expect(kinds.length).toBeGreaterThan(10);
    for (const kind of kinds) for (const fault of FAULTS) expectedFor(docs, kind, fault);
    // The per-request table narrows the per-code one: a reboot may have been applied.
    expect(expectedFor(docs, "POST /nodes/{node}/qemu/{vmid}/status/reboot", "596")).toBe(
      "not retried",
    );
    expect(expectedFor(docs, "POST /nodes/{node}/qemu/{vmid}/clone", "595")).toBe("retried");
    expect(expectedFor(docs, "POST /nodes/{node}/qemu/{vmid}/clone", "reset")).toBe("inspected");
    expect(expectedFor(docs, "DELETE /nodes/{node}/qemu/{vmid}", "596")).toBe("retried");
    expect(expectedFor(docs, "GET /cluster/resources", "403")).toBe("not retried");
  });

  const rows = SAMPLE.flatMap(([op, kind, faults]) => faults.map((f) => [op, kind, f] as const));
  it.each(rows)(
    "%s: %s with %s is classed as documented, explained, and a re-run converges cleanly",
    async (operation, kind, fault) => {
      const target = targets.get(operation)?.find((t) => kind.test(t.kind));
      expect(target, `no ${String(kind)} in a clean ${operation}`).toBeDefined();
      if (target === undefined) return;
      const row = await runFaultRow(target, fault, docs);
      console.log(formatFaultTable([row]));
      expect(row.observed).not.toBe("not reached");
      expect(row.problems).toEqual([]);
    },
  );
});
