/**
 * Independent ISO readers from Debian packages, for the seed tests: xorriso (libisofs),
 * isoinfo (genisoimage), 7z (p7zip-full) and blkid (util-linux). A missing reader is a failure,
 * not a skip: scripts/install-test-deps.sh installs them.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGES: Record<string, string> = {
  xorriso: "xorriso",
  isoinfo: "genisoimage",
  "7z": "p7zip-full",
  blkid: "util-linux",
  python3: "python3-yaml",
  "cloud-init": "cloud-init",
};

/** Runs a reader and returns its stdout; throws a clear error when it is not installed. */
export function run(tool: string, args: readonly string[], input?: string): string {
  try {
    return execFileSync(tool, args, {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["pipe", "pipe", "pipe"],
      ...(input === undefined ? {} : { input }),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        `${tool} (Debian package ${PACKAGES[tool] ?? "?"}) is not installed: run scripts/install-test-deps.sh`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Runs a reader and returns its stdout as raw bytes. */
export function runBytes(tool: string, args: readonly string[]): Buffer {
  try {
    return execFileSync(tool, args, {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(`${tool} is not installed: run scripts/install-test-deps.sh`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Writes `image` to a fresh temporary file, calls `fn` with its path, and removes it. */
export function withIsoFile<T>(image: Uint8Array, fn: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "seed-iso-"));
  try {
    const path = join(dir, "seed.iso");
    writeFileSync(path, image);
    return fn(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** File names in the root, as `isoinfo -l` prints them, for `mode` "" (plain), "-J" or "-R". */
export function isoinfoNames(path: string, mode: "" | "-J" | "-R"): string[] {
  const args = mode === "" ? ["-l", "-i", path] : [mode, "-l", "-i", path];
  return run("isoinfo", args)
    .split("\n")
    .filter((line) => /^[-d][-rwx]{9}\s/.test(line))
    .map((line) => line.replace(/^.*\]\s+/, "").trimEnd())
    .filter((name) => name !== "." && name !== ".." && name !== "\u0000" && name !== "\u0001");
}

/** `mode name` for each root entry of the Rock Ridge tree, `.` and `..` included. */
export function isoinfoModes(path: string): string[] {
  return run("isoinfo", ["-R", "-l", "-i", path])
    .split("\n")
    .filter((line) => /^[-d][-rwx]{9}\s/.test(line))
    .map((line) => `${line.slice(0, 10)} ${line.replace(/^.*\]\s+/, "").trimEnd()}`);
}

/** A file's bytes through isoinfo's Joliet (-J) or Rock Ridge (-R) tree. */
export function isoinfoExtract(path: string, mode: "-J" | "-R", name: string): Buffer {
  return runBytes("isoinfo", [mode, "-i", path, "-x", `/${name}`]);
}

/** Root names as xorriso (libisofs, Rock Ridge tree) lists them. */
export function xorrisoNames(path: string): string[] {
  return run("xorriso", ["-indev", path, "-find", "/", "-type", "f"])
    .split("\n")
    .filter((line) => line.startsWith("'/"))
    .map((line) => line.slice(2, -1));
}

/** Extracts the whole image with xorriso and returns each file's bytes by name. */
export function xorrisoExtract(path: string, names: readonly string[]): Map<string, Buffer> {
  const dir = mkdtempSync(join(tmpdir(), "seed-x-"));
  try {
    run("xorriso", ["-osirrox", "on", "-indev", path, "-extract", "/", join(dir, "out")]);
    return new Map(names.map((n) => [n, readFileSync(join(dir, "out", n))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Names 7-Zip lists (`7z l -slt`, its Path fields). */
export function sevenZipNames(path: string): string[] {
  return run("7z", ["l", "-slt", path])
    .split("\n")
    .filter((line) => line.startsWith("Path = ") && line !== `Path = ${path}`)
    .map((line) => line.slice("Path = ".length));
}

/** A file's bytes as 7-Zip extracts it to stdout. */
export function sevenZipExtract(path: string, name: string): Buffer {
  return runBytes("7z", ["e", "-so", path, name]);
}

/** The filesystem label libblkid reports, which is what cloud-init's `LABEL=cidata` matches. */
export function blkidLabel(path: string): string {
  return run("blkid", ["-p", "-o", "value", "-s", "LABEL", path]).trim();
}

/** The `Volume id:` line of `isoinfo -d` (the primary descriptor). */
export function isoinfoVolumeId(path: string): string {
  const line = run("isoinfo", ["-d", "-i", path])
    .split("\n")
    .find((l) => l.startsWith("Volume id: "));
  return line?.slice("Volume id: ".length) ?? "";
}

/**
 * cloud-init's `net-convert`: a network-config (v2) as `distro` would write it with `output`
 * (netplan, eni). Resolves with the text of the one file it writes.
 */
export function netConvert(
  networkConfig: string,
  distro: "ubuntu" | "debian",
  output: "netplan" | "eni",
): string {
  const dir = mkdtempSync(join(tmpdir(), "net-convert-"));
  try {
    writeFileSync(join(dir, "network-config"), networkConfig);
    const out = join(dir, "out");
    const args = ["-p", join(dir, "network-config"), "-k", "yaml", "-d", out, "-D", distro];
    run("cloud-init", ["devel", "net-convert", ...args, "-O", output]);
    const folder = join(out, output === "netplan" ? "etc/netplan" : "etc/network/interfaces.d");
    return readFileSync(join(folder, readdirSync(folder)[0] ?? ""), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
