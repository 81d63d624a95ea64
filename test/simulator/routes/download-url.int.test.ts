import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../../simulator/index.js";
import { data, type TestClient } from "../support/client.js";
import { uploadFile } from "../support/upload.js";
import {
  downloadAndWait,
  startWithImages,
  stopImageSim,
  type ImageServer,
} from "../support/image-server.js";

const IMAGE = Buffer.alloc(40 * 1024 * 1024 + 123, 7);
const SHA256 = createHash("sha256").update(IMAGE).digest("hex");

let sim: Simulator;
let api: TestClient;
let images: ImageServer;

async function start(options: SimulatorOptions = {}): Promise<void> {
  ({ sim, api, images } = await startWithImages(
    {
      "/debian.qcow2": IMAGE,
      "/small.qcow2": Buffer.alloc(2048, 3),
      "/small.iso.gz": gzipSync(Buffer.alloc(4096, 1)),
    },
    options,
  ));
}

afterEach(() => stopImageSim({ sim, api, images }));

const importContent = async (): Promise<Record<string, unknown>[]> =>
  data(await api.get("/nodes/pve1/storage/local/content?content=import")) as Record<
    string,
    unknown
  >[];

describe("routes/download-url", () => {
  it("fetches the URL in a download task, logs wget's progress and stores the import volume", async () => {
    await start();
    const res = await api.call("POST", "/nodes/pve1/storage/local/download-url", {
      url: `${images.url}/debian.qcow2`,
      content: "import",
      filename: "debian.qcow2",
      "checksum-algorithm": "sha256",
      checksum: SHA256,
    });
    const upid = String(data(res));
    expect(upid).toMatch(/:download:debian\.qcow2:root@pam!ci:$/);
    const { exitstatus, log } = await downloadAndWait(api, {
      url: `${images.url}/moved/debian.qcow2`,
      content: "import",
      filename: "other.qcow2",
    });
    expect(exitstatus).toBe("OK");
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(log[0]).toBe(
      `downloading ${images.url}/moved/debian.qcow2 to /var/lib/vz/import/other.qcow2`,
    );
    expect(log).toContain("HTTP request sent, awaiting response... 200 OK");
    expect(log).toContain(`Length: ${IMAGE.length} (40M) [application/octet-stream]`);
    const progress = log.filter((l) => /^\s+\d+K [. ]+/.test(l));
    const firstLine = String(Math.floor((32 * 1024 * 1024 * 100) / IMAGE.length));
    expect(progress.map((l) => /(\d+)%/.exec(l)?.[1])).toEqual([firstLine, "100"]);
    expect(progress[0]).toMatch(new RegExp(`^\\s+0K (\\.{8} ){4} ${firstLine}% `));
    expect(progress[1]).toMatch(/^\s+32768K \.{8} +100% \S+=\d+\.\ds$/);
    expect(log).toContain(
      `download of '${images.url}/moved/debian.qcow2' to '/var/lib/vz/import/other.qcow2' finished`,
    );
    expect(log.at(-1)).toBe("TASK OK");
    expect(images.requests).toEqual(["/debian.qcow2", "/moved/debian.qcow2", "/debian.qcow2"]);
    const listed = await importContent();
    expect(listed.map((v) => [v["volid"], v["format"], v["size"], v["content"]])).toEqual([
      ["local:import/debian.qcow2", "qcow2", IMAGE.length, "import"],
      ["local:import/other.qcow2", "qcow2", IMAGE.length, "import"],
    ]);
  });

  it("fails the task with PVE's checksum text and stores nothing", async () => {
    await start();
    const wrong = "0".repeat(64);
    const { exitstatus, log } = await downloadAndWait(api, {
      url: `${images.url}/debian.qcow2`,
      content: "import",
      filename: "debian.qcow2",
      "checksum-algorithm": "sha256",
      checksum: wrong,
    });
    expect(exitstatus).toBe(`checksum mismatch: got '${SHA256}' != expect '${wrong}'`);
    expect(log.slice(-2)).toEqual([
      "calculating checksum...",
      `TASK ERROR: checksum mismatch: got '${SHA256}' != expect '${wrong}'`,
    ]);
    expect(await importContent()).toEqual([]);
  });

  it("refuses an existing file unless its checksum proves it is the same image", async () => {
    await start();
    const params = { url: `${images.url}/debian.qcow2`, content: "import", filename: "d.qcow2" };
    expect((await downloadAndWait(api, params)).exitstatus).toBe("OK");
    expect((await downloadAndWait(api, params)).exitstatus).toBe(
      "refusing to override existing file '/var/lib/vz/import/d.qcow2'",
    );
    const again = await downloadAndWait(api, {
      ...params,
      "checksum-algorithm": "sha256",
      checksum: SHA256.toUpperCase(),
    });
    expect(again.exitstatus).toBe("OK");
    expect(again.log).toContain(
      "calculating checksum of existing file...OK, got correct file already, no need to download",
    );
    expect(images.requests).toEqual(["/debian.qcow2"]);
  });

  it("compares the checksum with a file of the same name that was uploaded", async () => {
    await start();
    const bytes = Buffer.alloc(2048, 3);
    const up = await uploadFile(sim, "pve1", "local", "small.qcow2", bytes, { content: "import" });
    expect((await api.waitTask("pve1", String(up.body?.["data"])))["exitstatus"]).toBe("OK");
    const same = await downloadAndWait(api, {
      url: `${images.url}/small.qcow2`,
      content: "import",
      filename: "small.qcow2",
      "checksum-algorithm": "sha512",
      checksum: createHash("sha512").update(bytes).digest("hex"),
    });
    expect(same.exitstatus).toBe("OK");
    expect(images.requests).toEqual([]);
  });

  it("answers wget's exit codes for a refused connection, a 404 and a dropped transfer", async () => {
    await start();
    const refused = await downloadAndWait(api, {
      url: "http://127.0.0.1:9/x.qcow2",
      content: "import",
      filename: "x.qcow2",
    });
    expect(refused.exitstatus).toBe(
      "download failed: command 'wget --progress=dot:giga -O /var/lib/vz/import/x.qcow2.tmp." +
        `${/tmp\.(\d+)/.exec(String(refused.exitstatus))?.[1]} http://127.0.0.1:9/x.qcow2' failed: exit code 4`,
    );
    expect(refused.log).toContain("Connecting to 127.0.0.1:9... failed: Connection refused.");
    const missing = await downloadAndWait(api, {
      url: `${images.url}/nope.qcow2`,
      content: "import",
      filename: "nope.qcow2",
    });
    expect(missing.exitstatus).toMatch(/^download failed: command 'wget .*' failed: exit code 8$/);
    expect(missing.log).toContain("HTTP request sent, awaiting response... 404 Not Found");
    const broken = await downloadAndWait(api, {
      url: `${images.url}/broken.qcow2`,
      content: "import",
      filename: "broken.qcow2",
    });
    expect(broken.exitstatus).toMatch(/failed: exit code 4$/);
    expect(broken.log.some((l) => l.startsWith("Read error at byte 1024 ("))).toBe(true);
    expect(await importContent()).toEqual([]);
  });

  it("never fetches from a non-loopback address unless allowRemoteDownloads is set", async () => {
    await start();
    const { exitstatus, log } = await downloadAndWait(api, {
      url: "https://cloud.debian.org/images/debian.qcow2",
      content: "import",
      filename: "debian.qcow2",
    });
    expect(exitstatus).toMatch(/failed: exit code 4$/);
    expect(log).toContain(
      "pve-sim fetches only from loopback addresses, not 'cloud.debian.org' (start it with allowRemoteDownloads to reach the network)",
    );
    // 0.0.0.0 reaches this host, but is not a loopback address: refused all the same.
    const anyAddress = images.url.replace("127.0.0.1", "0.0.0.0");
    const local = await downloadAndWait(api, {
      url: `${anyAddress}/small.qcow2`,
      content: "import",
      filename: "small.qcow2",
    });
    expect(local.exitstatus).toMatch(/failed: exit code 4$/);
    expect(await importContent()).toEqual([]);
    expect(images.requests).toEqual([]);
  });

  it("fetches from any address when started with allowRemoteDownloads", async () => {
    await start({ allowRemoteDownloads: true });
    const { exitstatus } = await downloadAndWait(api, {
      url: `${images.url.replace("127.0.0.1", "0.0.0.0")}/small.qcow2`,
      content: "import",
      filename: "small.qcow2",
    });
    expect(exitstatus).toBe("OK");
    expect(images.requests).toEqual(["/small.qcow2"]);
  });

  it("takes no import content when it answers as PVE 7.4, which had none", async () => {
    await start({ pveVersion: "7.4" });
    const res = await api.call("POST", "/nodes/pve1/storage/local/download-url", {
      url: `${images.url}/debian.qcow2`,
      content: "import",
      filename: "debian.qcow2",
    });
    expect(res.status).toBe(400);
    expect(Object.keys((res.body?.["errors"] ?? {}) as object)).toEqual(["content"]);
    expect(await importContent()).toEqual([]);
  });

  it("checks storage, content type and file name before starting a task", async () => {
    await start();
    const post = (storage: string, params: Record<string, string>) =>
      api.call("POST", `/nodes/pve1/storage/${storage}/download-url`, {
        url: `${images.url}/debian.qcow2`,
        content: "import",
        filename: "debian.qcow2",
        ...params,
      });
    const img = await post("local", { filename: "noble-server-cloudimg-amd64.img" });
    expect([img.status, img.body?.["errors"]]).toEqual([
      400,
      { filename: "invalid filename or wrong extension" },
    ]);
    const xz = await post("local", { filename: "debian.qcow2.xz" });
    expect(xz.body?.["errors"]).toEqual({ filename: "invalid filename or wrong extension" });
    const notImport = await post("shared", {});
    expect([notImport.status, notImport.body?.["message"]]).toEqual([
      500,
      "storage 'shared' is not configured for content-type 'import'\n",
    ]);
    const block = await post("local-lvm", {});
    expect(block.body?.["message"]).toBe(
      "can't upload to storage type 'lvmthin', not a file based storage!\n",
    );
    const half = await post("local", { checksum: SHA256 });
    expect(half.body?.["errors"]).toEqual({
      "checksum-algorithm": "'checksum-algorithm' is required",
    });
    const disk = await post("local", { content: "images" });
    expect(disk.body?.["errors"]).toEqual({
      content: "value 'images' does not have a value in the enumeration 'iso, vztmpl, import'",
    });
    const ftp = await post("local", { url: "ftp://127.0.0.1/debian.qcow2" });
    expect(ftp.body?.["errors"]).toEqual({ url: "value does not match the regex pattern" });
    expect(sim.model.tasks.size).toBe(0);
    expect(images.requests).toEqual([]);
  });

  it("decompresses only ISO content", async () => {
    await start();
    const iso = await downloadAndWait(api, {
      url: `${images.url}/small.iso.gz`,
      content: "iso",
      filename: "small.iso",
      compression: "gz",
    });
    expect(iso.exitstatus).toBe("OK");
    const listed = data(await api.get("/nodes/pve1/storage/local/content?content=iso")) as Record<
      string,
      unknown
    >[];
    expect(listed.map((v) => [v["volid"], v["size"]])).toEqual([["local:iso/small.iso", 4096]]);
    const image = await downloadAndWait(api, {
      url: `${images.url}/debian.qcow2`,
      content: "import",
      filename: "debian.qcow2",
      compression: "zst",
    });
    expect(image.exitstatus).toBe("decompression not supported for import");
    expect(images.requests).toEqual(["/small.iso.gz"]);
  });

  it("takes Sys.AccessNetwork on the node instead of Sys.Audit+Sys.Modify on /", async () => {
    await start();
    const params = { url: `${images.url}/small.qcow2`, content: "import", filename: "d.qcow2" };
    const post = (token: string) =>
      api.withToken(token).call("POST", "/nodes/pve1/storage/local/download-url", params);
    const narrow = sim.addToken("tmpl@pve!narrow", [
      { path: "/storage/local", privileges: ["Datastore.AllocateTemplate"] },
      { path: "/nodes/pve1", privileges: ["Sys.AccessNetwork"] },
    ]);
    const wide = sim.addToken("tmpl@pve!wide", [
      { path: "/", privileges: ["Sys.Audit", "Sys.Modify"] },
      { path: "/storage/local", privileges: ["Datastore.AllocateTemplate"] },
    ]);
    const network = sim.addToken("tmpl@pve!net", [
      { path: "/nodes/pve1", privileges: ["Sys.AccessNetwork"] },
    ]);
    const storage = sim.addToken("tmpl@pve!store", [
      { path: "/storage/local", privileges: ["Datastore.AllocateTemplate"] },
      { path: "/", privileges: ["Sys.Audit"] },
    ]);
    expect((await post(narrow)).status).toBe(200);
    expect((await post(wide)).status).toBe(200);
    const noStorage = await post(network);
    expect([noStorage.status, noStorage.statusText]).toEqual([
      403,
      "Permission check failed (/storage/local, Datastore.AllocateTemplate)",
    ]);
    const noNetwork = await post(storage);
    expect([noNetwork.status, noNetwork.statusText]).toEqual([403, "Permission check failed"]);
  });

  it("deletes a downloaded import volume with an imgdel task, as an ISO", async () => {
    await start();
    const params = { url: `${images.url}/small.qcow2`, content: "import", filename: "s.qcow2" };
    expect((await downloadAndWait(api, params)).exitstatus).toBe("OK");
    const res = await api.call("DELETE", "/nodes/pve1/storage/local/content/local:import/s.qcow2");
    const upid = String(data(res));
    expect(upid).toMatch(/:imgdel:local:root@pam!ci:$/);
    expect((await api.waitTask("pve1", upid))["exitstatus"]).toBe("OK");
    expect(await importContent()).toEqual([]);
    expect((await downloadAndWait(api, params)).exitstatus).toBe("OK");
  });
});
