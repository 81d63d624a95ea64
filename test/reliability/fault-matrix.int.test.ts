import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../provider/pve/api/dispatcher-registry";
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
 * that change something, each with the faults a real cluster produces there (a lost answer: PVE
 * acted, the client never heard). The timeout fault
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
  // The requests a template, a cross-node create and a disk change add: each non-idempotent
  // POST with a refusal (595, retried), an answer lost after PVE acted (never retried: the
  // re-run finds what it did, a download still running is waited for) and a permanent fault;
  // each task with its failure. (A lost answer of move_disk is in the bench only: see
  // docs/known-limits.md.)
  ["template-create", /^POST .*\/download-url$/, ["403", "595", "lost answer"]],
  ["template-create", /^task \{download\}$/, ["task failure"]],
  ["template-create", /^GET \/nodes\/\{node\}\/tasks$/, ["500", "596"]],
  ["template-create", /^POST \/nodes\/\{node\}\/qemu$/, ["500", "595", "lost answer"]],
  ["template-create", /^task \{qmcreate\}$/, ["task failure"]],
  ["template-create", /^POST .*\/template$/, ["403", "596", "lost answer"]],
  ["template-delete", /^DELETE .*\/qemu\/\{vmid\}$/, ["lost answer"]],
  ["template-delete", /^GET \/nodes\/\{node\}\/tasks$/, ["500"]],
  ["template-delete", /^DELETE .*\/content\/\{volid\}$/, ["596", "lost answer"]],
  ["cross-node-create", /^POST .*\/migrate$/, ["403", "595", "lost answer"]],
  ["cross-node-create", /^task \{qmigrate\}$/, ["task failure"]],
  ["disk-update", /^POST .*\/move_disk$/, ["500", "595"]],
  ["disk-update", /^task \{qmmove\}$/, ["task failure"]],
  ["disk-update", /^PUT .*\/resize$/, ["596", "lost answer"]],
  ["disk-update", /^GET .*\/pending$/, ["500", "596"]],
  // A snapshot taken whose answer was lost is found and kept by the re-run, not taken twice; a
  // delete sent again finds the snapshot gone or waits for the delete still running.
  ["snapshot-create", /^POST .*\/snapshot$/, ["595", "lost answer"]],
  ["snapshot-create", /^task \{qmsnapshot\}$/, ["task failure"]],
  ["snapshot-delete", /^DELETE .*\/snapshot\/\{snapname\}$/, ["596", "lost answer"]],
];

describe("one fault on one request, through the provider's runtime over HTTP", () => {
  const targets = new Map<FaultOperation, FaultTarget[]>();
  const docs = documentedRetries();
  // One clean run per operation (about a dozen, each a few seconds on a busy machine).
  beforeAll(async () => {
    for (const operation of new Set(SAMPLE.map(([op]) => op))) {
      targets.set(operation, await faultTargets(operation));
    }
  }, 120_000);
  afterAll(() => closeSharedDispatchers());

  it('finds every request kind of every operation in the "What is retried" table', () => {
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
    // A second download, VM create, conversion, migration or disk move is a second action.
    for (const kind of [
      "POST /nodes/{node}/storage/local/download-url",
      "POST /nodes/{node}/qemu",
      "POST /nodes/{node}/qemu/{vmid}/template",
      "POST /nodes/{node}/qemu/{vmid}/migrate",
      "POST /nodes/{node}/qemu/{vmid}/move_disk",
    ]) {
      expect(documentedRetried(docs, kind, "lost answer"), kind).toBe(false);
      expect(documentedRetried(docs, kind, "595"), kind).toBe(true);
    }
    expect(documentedRetried(docs, "PUT /nodes/{node}/qemu/{vmid}/resize", "lost answer")).toBe(
      true,
    );
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
