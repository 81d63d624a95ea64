import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeSharedDispatchers } from "../../../../provider/pve/api/dispatcher-registry.js";
import { HttpProxmoxApi } from "../../../../provider/pve/api/http-api.js";
import { waitForTask } from "../../../../provider/pve/tasks/task-wait.js";
import { parseConnectionConfig } from "../../../../provider/pve/config.js";
import { failure } from "../../../support/failure.js";
import { startSimulator, type Simulator } from "../../../../simulator/index.js";
import {
  IMPORT_STORAGES,
  serveImages,
  type ImageServer,
} from "../../../simulator/support/image-server.js";
import { expectNoSecret } from "./no-secret.js";

/** The template calls of the real client (download-url, create with import-from, template). */

const IMAGE = Buffer.alloc(64 * 1024, 7);
const SHA256 = createHash("sha256").update(IMAGE).digest("hex");
let sim: Simulator;
let images: ImageServer;
let api: HttpProxmoxApi;
let secret: string;

beforeAll(async () => {
  sim = await startSimulator({ defaultTaskMs: 20, storages: IMPORT_STORAGES });
  images = await serveImages({ "/debian.qcow2": IMAGE });
  secret = sim.apiToken.slice(sim.apiToken.lastIndexOf("=") + 1);
  const connection = parseConnectionConfig(
    { endpoint: sim.url, apiToken: sim.apiToken, caCert: sim.caCertPem },
    { env: {} },
  );
  api = new HttpProxmoxApi({ connection, timeoutMs: 5_000 });
});

afterAll(async () => {
  await closeSharedDispatchers();
  await sim.close();
  await images.close();
});

const wait = (upid: string | null) =>
  upid === null ? Promise.resolve() : waitForTask(api, "pve1", upid, { budgetMs: 10_000 });

describe("http-api template calls against the simulator", () => {
  it("downloads an image as import content, makes a template from it and deletes both", async () => {
    await wait(
      await api.downloadUrl({
        node: "pve1",
        storage: "local",
        url: `${images.url}/debian.qcow2`,
        filename: "tpl-a.qcow2",
        content: "import",
        checksum: { algorithm: "sha256", value: SHA256 },
      }),
    );
    const imported = await api.storageContent("pve1", "local", "import");
    expect(imported).toContainEqual(
      expect.objectContaining({
        volid: "local:import/tpl-a.qcow2",
        content: "import",
        format: "qcow2",
      }),
    );

    await wait(
      await api.createVm({
        node: "pve1",
        vmid: 7100,
        config: {
          name: "tpl-a",
          scsi0: "local-lvm:0,import-from=local:import/tpl-a.qcow2",
          scsihw: "virtio-scsi-single",
          serial0: "socket",
        },
      }),
    );
    await wait(await api.convertToTemplate("pve1", 7100));
    const config = await api.vmConfig("pve1", 7100);
    expect(config.template).toBe(true);
    expect(config["scsi0"]).toMatch(/^local-lvm:base-7100-disk-0,/);
    expect(config["serial0"]).toBe("socket");

    await wait(await api.destroyVm("pve1", 7100));
    await wait(await api.deleteVolume("pve1", "local", "local:import/tpl-a.qcow2"));
    expect(await api.storageContent("pve1", "local", "import")).toEqual([]);
    expect((await api.clusterVms()).some((vm) => vm.vmid === 7100)).toBe(false);
  });

  it("fails the download task with CHECKSUM_MISMATCH and stores nothing", async () => {
    const upid = await api.downloadUrl({
      node: "pve1",
      storage: "local",
      url: `${images.url}/debian.qcow2`,
      filename: "tpl-b.qcow2",
      content: "import",
      checksum: { algorithm: "sha256", value: "0".repeat(64) },
    });
    const error = await failure(wait(upid));
    expect(error).toMatchObject({
      code: "TASK_FAILED",
      context: { node: "pve1", taskErrorCode: "CHECKSUM_MISMATCH" },
    });
    expect(await api.storageContent("pve1", "local", "import")).toEqual([]);
    expectNoSecret(error, secret);
  });

  it("refuses a storage without import content as UNSUPPORTED, naming the storage", async () => {
    const error = await failure(
      api.downloadUrl({
        node: "pve1",
        storage: "shared",
        url: `${images.url}/debian.qcow2`,
        filename: "tpl-c.qcow2",
        content: "import",
      }),
    );
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.message).toContain("storage 'shared' is not configured for content-type 'import'");
    expectNoSecret(error, secret);
  });

  it("refuses an image name PVE cannot import (an Ubuntu .img) as UNSUPPORTED", async () => {
    const error = await failure(
      api.downloadUrl({
        node: "pve1",
        storage: "local",
        url: `${images.url}/debian.qcow2`,
        filename: "noble-server-cloudimg-amd64.img",
        content: "import",
      }),
    );
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.message).toContain("filename: invalid filename or wrong extension");
    expect(error.message).toContain("store it as .qcow2");
  });

  it("refuses an ISO as an import-from source as UNSUPPORTED", async () => {
    await wait(
      await api.uploadIso("pve1", "local", { filename: "x.iso", bytes: new Uint8Array(2048) }),
    );
    const error = await failure(
      api.createVm({
        node: "pve1",
        vmid: 7101,
        config: { scsi0: "local-lvm:0,import-from=local:iso/x.iso" },
      }),
    );
    expect(error.code).toBe("UNSUPPORTED");
    expect(error.context).toMatchObject({ node: "pve1" });
  });
});
