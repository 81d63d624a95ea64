import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareRuns } from "../../../simulator/conformance/compare.js";
import { runConformance, type ConformanceReport } from "../../../simulator/conformance/run.js";
import { startSimulator } from "../../../simulator/index.js";

/**
 * Every report recorded on a real cluster holds the simulator to what that cluster answered: the
 * scenario run on the simulator of the report's release must show no difference from it.
 */
const dir = join(__dirname, "corpus");
const reports = readdirSync(dir).filter((f) => f.endsWith(".json"));

describe.skipIf(reports.length === 0)(
  "the conformance corpus (skipped: no report recorded yet)",
  () => {
    it.each(reports)("the simulator answers as the cluster of %s did", async (file) => {
      const recorded = JSON.parse(readFileSync(join(dir, file), "utf8")) as ConformanceReport;
      // A simulator stands in for the cluster only to run the scenario; the comparison that counts
      // is between its in-process twin of the report's release and the recorded answers.
      const standIn = await startSimulator({
        port: 0,
        pveVersion: recorded.simulatorProfile,
        defaultTaskMs: 20,
        taskJitter: 0,
        guestBootMs: 100,
      });
      try {
        const { report } = await runConformance(
          {
            endpoint: standIn.url,
            login: { kind: "token", token: standIn.apiToken },
            caCert: standIn.caCertPem,
            node: "pve1",
            template: 9000,
            range: { min: 4200, max: 4209 },
          },
          () => undefined,
        );
        expect(compareRuns(recorded.cluster.exchanges, report.simulator.exchanges)).toEqual([]);
      } finally {
        await standIn.close();
      }
    });
  },
);
