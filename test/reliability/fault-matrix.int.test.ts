import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../provider/api/dispatcher-registry";
import {
  applies,
  documentedRetried,
  documentedRetries,
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
  ["create", /^GET .*\/tasks$/, ["500"]],
  ["create", /^task \{qmclone\}$/, ["task failure"]],
  ["create", /^POST .*\/upload$/, ["500", "reset"]],
  ["create", /^GET .*\/agent\/network-get-interfaces$/, ["500"]],
  ["update", /^(PUT|POST) .*\/config$/, ["403", "500", "595"]],
  ["update", /^POST .*\/upload$/, ["403"]],
  ["update", /^GET .*\/storage\/[^/]+\/content$/, ["500"]],
  ["update", /^POST .*\/status\/reboot$/, ["596", "reset"]],
  ["delete", /^DELETE .*\/qemu\/\{vmid\}$/, ["403", "596", "reset"]],
  ["delete", /^task \{qmdestroy\}$/, ["task failure"]],
];

describe("one fault on one request, through the provider's runtime over HTTP", () => {
  const targets = new Map<FaultOperation, FaultTarget[]>();
  const docs = documentedRetries();
  beforeAll(async () => {
    for (const operation of new Set(SAMPLE.map(([op]) => op))) {
      targets.set(operation, await faultTargets(operation));
    }
  });
  afterAll(() => closeSharedDispatchers());

  it('finds every request kind of a create, update and delete in the "What is retried" table', () => {
    const all = [...targets.values()].flat();
    expect(all.length).toBeGreaterThan(10);
    // Throws for a request the table has no row for.
    for (const target of all)
      for (const fault of FAULTS.filter((f) => applies(target, f)))
        documentedRetried(docs, target.kind, fault);
    // A reboot may have happened before a 596; a 595 never reached the node.
    const reboot = "POST /nodes/{node}/qemu/{vmid}/status/reboot";
    expect(documentedRetried(docs, reboot, "596")).toBe(false);
    expect(documentedRetried(docs, reboot, "595")).toBe(true);
    // A clone after a lost answer is sent again once its VMID holds nothing of ours.
    expect(documentedRetried(docs, "POST /nodes/{node}/qemu/{vmid}/clone", "reset")).toBe(true);
    expect(documentedRetried(docs, "DELETE /nodes/{node}/qemu/{vmid}", "596")).toBe(true);
    expect(documentedRetried(docs, "GET /cluster/resources", "403")).toBe(false);
    // The agent wait polls through a 500 (PVE's "qmp command … got timeout" while it starts).
    const agent = "GET /nodes/{node}/qemu/{vmid}/agent/network-get-interfaces";
    expect(documentedRetried(docs, agent, "500")).toBe(true);
    expect(documentedRetried(docs, "GET /cluster/resources", "500")).toBe(false);
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
