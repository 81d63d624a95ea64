import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../simulator/index.js";

const root = resolve(__dirname, "..", "..");
// Inside the checkout, so the compiled simulator resolves its dependencies (yaml) from the
// project's node_modules as the installed package does.
mkdirSync(join(root, ".e2e"), { recursive: true });
const dir = mkdtempSync(join(root, ".e2e", "pve-sim-cli-"));
let cli: string;

beforeAll(() => {
  // Compile only the simulator (the build of the whole package is not this test's business).
  execFileSync(process.execPath, [
    join(root, "node_modules/typescript/bin/tsc"),
    "--outDir",
    join(dir, "out"),
    "--rootDir",
    root,
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--target",
    "es2022",
    "--types",
    "node",
    "--skipLibCheck",
    "--strict",
    "--ignoreConfig",
    join(root, "simulator/cli.ts"),
  ]);
  cli = join(dir, "out/simulator/cli.js");
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("cli", () => {
  it("prints one JSON line when ready and saves state on SIGTERM", async () => {
    const stateFile = join(dir, "state.json");
    const caFile = join(dir, "ca.pem");
    const child = spawn(
      process.execPath,
      [cli, "--port", "0", "--state-file", stateFile, "--ca-file", caFile, "--task-ms", "10"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await readyLine(child);
    const ready = JSON.parse(line) as Record<string, string>;
    expect(Object.keys(ready)).toEqual(["url", "caFile", "apiToken", "rootPassword", "adminUrl"]);
    expect(ready["url"]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(ready["caFile"]).toBe(caFile);
    expect(ready["adminUrl"]).toBe(`${ready["url"]}/_sim`);
    expect(readFileSync(caFile, "utf8")).toContain("BEGIN CERTIFICATE");
    // root@pam logs in with the printed password.
    const agent = new Agent({ connect: { ca: readFileSync(caFile, "utf8") } });
    const login = await request(`${ready["url"]}/api2/json/access/ticket`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        username: "root@pam",
        password: ready["rootPassword"] ?? "",
      }).toString(),
    });
    expect(login.statusCode).toBe(200);
    await login.body.dump();
    await agent.close();
    const exit = new Promise<number | null>((done) => child.once("exit", done));
    child.kill("SIGTERM");
    // stderr is part of the expectation so a failure shows why the process did not exit cleanly.
    expect({ code: await exit, stderr }).toEqual({ code: 0, stderr: "" });
    const saved = JSON.parse(readFileSync(stateFile, "utf8")) as {
      version: number;
      vms: { vmid: number }[];
    };
    expect([saved.version, saved.vms.map((vm) => vm.vmid)]).toEqual([1, [9000, 9001]]);
  });

  it("answers as the release --pve-version names, and refuses one it does not know", async () => {
    const child = spawn(process.execPath, [cli, "--port", "0", "--http", "--pve-version", "7.4"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const line = await readyLine(child);
      const ready = JSON.parse(line) as { url: string; apiToken: string };
      const res = await fetch(`${ready.url}/api2/json/version`, {
        headers: { authorization: `PVEAPIToken=${ready.apiToken}` },
      });
      expect(((await res.json()) as { data: { release: string } }).data.release).toBe("7.4");
    } finally {
      const exit = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exit;
    }
    const refused = spawn(process.execPath, [cli, "--port", "0", "--pve-version", "6.4"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    refused.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((done) => refused.once("exit", done));
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: "pve-sim: unknown PVE version '6.4': the simulator answers as 7.4, 8.4, 9.1\n",
    });
  });

  it("starts with no template and the storage content --no-templates and --storage-content set", async () => {
    const child = spawn(
      process.execPath,
      [cli, "--port", "0", "--http", "--no-templates", "--storage-content", "local=iso,import"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const ready = JSON.parse(await readyLine(child)) as { url: string; apiToken: string };
      const get = async (path: string) => {
        const res = await fetch(`${ready.url}/api2/json${path}`, {
          headers: { authorization: `PVEAPIToken=${ready.apiToken}` },
        });
        return ((await res.json()) as { data: Record<string, unknown>[] }).data;
      };
      expect(await get("/cluster/resources?type=vm")).toEqual([]);
      const storages = await get("/nodes/pve1/storage");
      expect(storages.map((s) => [s["storage"], s["content"]])).toEqual([
        ["local", "import,iso"],
        ["local-lvm", "images,rootdir"],
        ["shared", "images,iso"],
      ]);
    } finally {
      const exit = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exit;
    }
  });

  it("refuses a --storage-content naming a storage or a content type it does not have", async () => {
    const refusal = async (setting: string) => {
      const refused = spawn(process.execPath, [cli, "--port", "0", "--storage-content", setting], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      refused.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((done) => refused.once("exit", done));
      return { code, stderr };
    };
    expect(await refusal("nfs=iso")).toEqual({
      code: 1,
      stderr:
        "pve-sim: --storage-content nfs=iso: no storage 'nfs' (there are local, local-lvm, shared)\n",
    });
    expect(await refusal("local=iso,isos")).toEqual({
      code: 1,
      stderr:
        "pve-sim: --storage-content local=iso,isos: content types are a comma-separated list of " +
        "iso, images, rootdir, vztmpl, backup, snippets, import\n",
    });
  });

  it("runs `conformance` against a cluster and prints no differences for a simulator of the same release", async () => {
    const cluster = await startSimulator({
      port: 0,
      defaultTaskMs: 20,
      taskJitter: 0,
      guestBootMs: 100,
    });
    try {
      const caFile = join(dir, "cluster-ca.pem");
      writeFileSync(caFile, cluster.caCertPem);
      const args = [cli, "conformance", "--endpoint", cluster.url, "--token", cluster.apiToken];
      const child = spawn(
        process.execPath,
        [
          ...args,
          "--ca-cert",
          caFile,
          "--node",
          "pve1",
          "--template",
          "9000",
          "--vmid-range",
          "4100-4109",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.once("exit", done));
      expect({ code, last: out.trim().split("\n").at(-1) }, out).toEqual({
        code: 0,
        last: "no differences",
      });
      expect([...cluster.model.vms.keys()].filter((id) => id >= 4100 && id <= 4109)).toEqual([]);
    } finally {
      await cluster.close();
    }
  });

  it("refuses `conformance` arguments that would let the scenario write outside its range", () => {
    const args = [
      "--endpoint",
      "https://pve.example:8006",
      "--token",
      "a@pve!b=c",
      "--node",
      "pve1",
    ];
    const run = (extra: string[]) => {
      try {
        execFileSync(process.execPath, [cli, "conformance", ...args, ...extra], { stdio: "pipe" });
        return { code: 0, stderr: "" };
      } catch (err) {
        const e = err as { status: number; stderr: Buffer };
        return { code: e.status, stderr: e.stderr.toString().split("\n")[0] };
      }
    };
    expect(run(["--template", "9000", "--vmid-range", "8990-9010"])).toEqual({
      code: 2,
      stderr:
        "pve-sim conformance: --template 9000 lies inside --vmid-range 8990-9010: the scenario would write to it",
    });
    expect(run(["--template", "9000", "--vmid-range", "50-60"])).toEqual({
      code: 2,
      stderr: "pve-sim conformance: --vmid-range 50-60: expected A-B with 100 <= A <= B",
    });
  });
});

/** The simulator's ready line; a child that exits first fails the test with its stderr. */
function readyLine(child: ChildProcess): Promise<string> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((done, fail) => {
    if (!child.stdout) throw new Error("pve-sim started without a stdout pipe");
    createInterface({ input: child.stdout }).once("line", done);
    child.once("exit", (code) => fail(new Error(`pve-sim exited with ${code} first: ${stderr}`)));
  });
}
