import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../simulator";
import { pulumi } from "../../e2e/support/engine";
import { untilNoneLeft } from "../../e2e/support/processes";
import { proxmoxStack } from "../../e2e/support/proxmox-stack";
import {
  IMPORT_STORAGES,
  serveImages,
  type ImageServer,
} from "../../simulator/support/image-server";
import { expectFailure, expectSuccess } from "../../support/command-result";
import { useEnginePerTest } from "../../e2e/support/use-stack";

/** A CloudImageTemplate from a pre-signed URL, through the real engine and the simulator. */

const IMAGE = Buffer.alloc(256 * 1024, 7);
const SHA256 = createHash("sha256").update(IMAGE).digest("hex");
const SIGNATURE = "X-Amz-Signature=5ecret0f1rst";
const SIGNATURE_2 = "X-Amz-Signature=5ecret5econd";

const program = (url: string, checksum: string) => `
const { CloudImageTemplate } = require("pulumi-proxmox");
const debian = new CloudImageTemplate("debian", {
  url: ${JSON.stringify(url)},
  checksum: ${JSON.stringify(checksum)},
  checksumAlgorithm: "sha256",
  node: "pve1",
});
exports.vmid = debian.vmid;
`;

describe("CloudImageTemplate with a pre-signed URL, through the real engine", () => {
  const { engine, startSimulator } = useEnginePerTest();
  let sim: Simulator;
  let images: ImageServer;
  beforeEach(async () => {
    images = await serveImages({ "/debian-12.qcow2": IMAGE });
    // Templates need 8.4 or later: pinned, whatever PVE_SIM_VERSION the suite runs under.
    sim = await startSimulator({ pveVersion: "8.4", defaultTaskMs: 20, storages: IMPORT_STORAGES });
  });
  afterEach(() => images.close());

  const imagesLeft = () =>
    sim.model
      .volumes("pve1", "local")
      .filter((v) => v.content === "import")
      .map((v) => v.volid);
  /** Templates in the resource's default VMID range (the simulator's own are below it). */
  const templatesLeft = () =>
    [...sim.model.vms]
      .filter(([vmid, vm]) => vm.config["template"] && vmid >= 10_000)
      .map(([vmid]) => vmid);

  it("never shows the query string in progress, errors, the mark, the state or the diff", async () => {
    const url = (signature: string) =>
      `${images.url}/debian-12.qcow2?${signature}&X-Amz-Expires=900`;
    const shown = `${images.url}/debian-12.qcow2?…`;
    const dir = await proxmoxStack(
      "presigned",
      program(url(SIGNATURE), "0".repeat(64)),
      sim,
      engine,
    );
    const write = (source: string) => fs.writeFileSync(path.join(dir, "index.js"), source);

    // A wrong checksum: PVE's error and task log name the URL.
    const failed = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectFailure(failed);
    expect(failed.stdout).toContain("checksum mismatch");
    expect(failed.stdout).toContain(shown);
    expect(failed.stdout + failed.stderr).not.toContain("5ecret");
    expect(images.requests).toEqual([`/debian-12.qcow2?${SIGNATURE}&X-Amz-Expires=900`]);
    expect(imagesLeft()).toEqual([]);
    expect(templatesLeft()).toEqual([]);

    write(program(url(SIGNATURE), SHA256));
    const up = await pulumi(["up", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(up);
    expect(up.stdout).toContain(`downloading ${shown} to local:import/pp-tmpl-`);
    expect(up.stdout).toMatch(/download on node pve1: 100% of 262144 bytes/);
    expect(up.stdout + up.stderr).not.toContain("5ecret");
    const [vmid] = templatesLeft();
    const description = String(sim.model.vms.get(vmid ?? 0)?.config["description"]);
    expect(description).toContain(`"url":"${shown}"`);
    expect(description).not.toContain("5ecret");
    const exported = await pulumi(["stack", "export"], dir, engine.env);
    expect(exported.stdout).toContain("ciphertext");
    expect(exported.stdout).not.toContain("5ecret");

    // A new signature for the same image is a new URL: the preview shows a replacement.
    write(program(url(SIGNATURE_2), SHA256));
    const preview = await pulumi(["preview", "--diff"], dir, engine.env);
    expectSuccess(preview);
    expect(preview.stdout).toContain(
      "+-pulumi-nodejs:dynamic/proxmox:CloudImageTemplate: (replace)",
    );
    expect(preview.stdout).toContain("[secret]");
    expect(preview.stdout + preview.stderr).not.toContain("5ecret");

    const destroy = await pulumi(["destroy", "--yes", "--skip-preview"], dir, engine.env);
    expectSuccess(destroy);
    expect(destroy.stdout + destroy.stderr).not.toContain("5ecret");
    // The next look finds nothing: no VM or template in the range, no image, no lock.
    expect(templatesLeft()).toEqual([]);
    expect([...sim.model.vms.keys()].filter((vmid) => vmid >= 10_000)).toEqual([]);
    expect([...sim.model.vms.values()].filter((vm) => vm.config["lock"])).toEqual([]);
    expect(imagesLeft()).toEqual([]);
    await untilNoneLeft(engine.marker);
  });
});
