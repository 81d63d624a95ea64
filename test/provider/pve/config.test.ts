import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_CONNECTIONS, parseConnectionConfig } from "../../../provider/pve/config.js";
import type { ProxmoxError } from "../../../provider/pve/errors.js";

const TOKEN = "root@pam!ci=0b1d4c5e-secret";
const PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

function failure(fn: () => unknown): ProxmoxError {
  try {
    fn();
  } catch (error) {
    return error as ProxmoxError;
  }
  throw new Error("expected a failure");
}

describe("config", () => {
  it("parses endpoint, token and defaults", () => {
    const config = parseConnectionConfig(
      { endpoint: "https://pve1:8006/", apiToken: TOKEN },
      { env: {} },
    );
    expect(config.origin).toBe("https://pve1:8006");
    expect(config.login).toMatchObject({ kind: "token", tokenId: "root@pam!ci" });
    expect(config.login.kind === "token" && config.login.secret.reveal()).toBe("0b1d4c5e-secret");
    expect(config.insecure).toBe(false);
    expect(config.caCert).toBeUndefined();
    expect(config.maxConnections).toBe(DEFAULT_MAX_CONNECTIONS);
  });

  it("takes maxConnections from config or PROXMOX_VE_MAX_CONNECTIONS, and names a bad one", () => {
    const base = { endpoint: "https://pve1:8006", apiToken: TOKEN };
    expect(
      parseConnectionConfig({ ...base, maxConnections: "16" }, { env: {} }).maxConnections,
    ).toBe(16);
    expect(
      parseConnectionConfig(base, { env: { PROXMOX_VE_MAX_CONNECTIONS: "2" } }).maxConnections,
    ).toBe(2);
    expect(
      failure(() => parseConnectionConfig({ ...base, maxConnections: "0" }, { env: {} })).message,
    ).toBe("Proxmox connection config: maxConnections must be a whole number from 1 to 64");
    expect(
      failure(() => parseConnectionConfig({ ...base, maxConnections: "many" }, { env: {} }))
        .message,
    ).toBe("Proxmox connection config: maxConnections must be a whole number from 1 to 64");
  });

  it("takes heavyTasksPerNode from config or its variable, unbounded unless set", () => {
    const base = { endpoint: "https://pve1:8006", apiToken: TOKEN };
    expect(parseConnectionConfig(base, { env: {} }).heavyTasksPerNode).toBeUndefined();
    expect(
      parseConnectionConfig({ ...base, heavyTasksPerNode: "2" }, { env: {} }).heavyTasksPerNode,
    ).toBe(2);
    expect(
      parseConnectionConfig(base, { env: { PROXMOX_VE_HEAVY_TASKS_PER_NODE: "3" } })
        .heavyTasksPerNode,
    ).toBe(3);
    expect(
      failure(() => parseConnectionConfig({ ...base, heavyTasksPerNode: "0" }, { env: {} }))
        .message,
    ).toBe("Proxmox connection config: heavyTasksPerNode must be a whole number from 1 to 64");
  });

  it("accepts an endpoint ending in /api2/json and a PVEAPIToken= prefix", () => {
    const config = parseConnectionConfig(
      { endpoint: "https://pve1:8006/api2/json", apiToken: `PVEAPIToken=${TOKEN}` },
      { env: {} },
    );
    expect(config.origin).toBe("https://pve1:8006");
    expect(config.login).toMatchObject({ kind: "token", tokenId: "root@pam!ci" });
  });

  it("falls back to the PROXMOX_VE_* environment", () => {
    const config = parseConnectionConfig(
      {},
      {
        env: {
          PROXMOX_VE_ENDPOINT: "https://10.0.0.2:8006",
          PROXMOX_VE_API_TOKEN: TOKEN,
          PROXMOX_VE_INSECURE: "true",
          PROXMOX_VE_CA_CERT: PEM,
        },
      },
    );
    expect(config).toMatchObject({
      origin: "https://10.0.0.2:8006",
      insecure: true,
      caCert: PEM.trim(),
    });
  });

  it("prefers explicit values over the environment", () => {
    const config = parseConnectionConfig(
      { endpoint: "https://a:8006", insecure: "false" },
      {
        env: {
          PROXMOX_VE_ENDPOINT: "https://b:8006",
          PROXMOX_VE_API_TOKEN: TOKEN,
          PROXMOX_VE_INSECURE: "1",
        },
      },
    );
    expect(config.origin).toBe("https://a:8006");
    expect(config.insecure).toBe(false);
  });

  it("reads the token from PROXMOX_VE_API_TOKEN_FILE and a CA from a file path", () => {
    const files: Record<string, string> = {
      "/run/secrets/pve": `${TOKEN}\n`,
      "/etc/pve-ca.pem": PEM,
    };
    const config = parseConnectionConfig(
      { endpoint: "https://pve1:8006", caCert: "/etc/pve-ca.pem" },
      {
        env: { PROXMOX_VE_API_TOKEN_FILE: "/run/secrets/pve" },
        readFile: (path) => {
          const text = files[path];
          if (text === undefined) throw Object.assign(new Error("no"), { code: "ENOENT" });
          return text;
        },
      },
    );
    expect(config.login.kind === "token" && config.login.secret.reveal()).toBe("0b1d4c5e-secret");
    expect(config.caCert).toBe(PEM);
  });

  it.each([
    [
      { apiToken: TOKEN },
      "Proxmox connection config: endpoint is required (config `endpoint` or PROXMOX_VE_ENDPOINT)",
    ],
    [
      { endpoint: "ftp://x", apiToken: TOKEN },
      "Proxmox connection config: endpoint must be an http(s) URL, e.g. https://pve1:8006",
    ],
    [
      { endpoint: "https://pve1:8006/x", apiToken: TOKEN },
      "Proxmox connection config: endpoint must be the server's origin, e.g. https://pve1:8006",
    ],
    [
      { endpoint: "https://pve1:8006" },
      "Proxmox connection config: apiToken is required (config `apiToken`, PROXMOX_VE_API_TOKEN or PROXMOX_VE_API_TOKEN_FILE), " +
        "or username and password for a password login (config `username` and `password`, or PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD)",
    ],
    [
      { endpoint: "https://pve1:8006", username: "ops@pve" },
      "Proxmox connection config: password is required with username (config `password` or PROXMOX_VE_PASSWORD)",
    ],
    [
      { endpoint: "https://pve1:8006", password: "pw" },
      "Proxmox connection config: username is required with password (config `username` or PROXMOX_VE_USERNAME), e.g. root@pam",
    ],
    [
      { endpoint: "https://pve1:8006", username: "root", password: "pw" },
      "Proxmox connection config: username must look like `user@realm`, e.g. root@pam or ops@pve",
    ],
    [
      { endpoint: "https://pve1:8006", apiToken: TOKEN, insecure: "yes" },
      "Proxmox connection config: insecure must be true or false",
    ],
  ])("rejects %o with a CONFIG error", (input, message) => {
    const error = failure(() => parseConnectionConfig(input, { env: {} }));
    expect(error.code).toBe("CONFIG");
    expect(error.message).toBe(message);
  });

  it("rejects a malformed token without echoing it", () => {
    const error = failure(() =>
      parseConnectionConfig(
        { endpoint: "https://pve1:8006", apiToken: "root@pam-secretvalue" },
        { env: {} },
      ),
    );
    expect(error.message).toBe(
      "Proxmox connection config: apiToken must look like `user@realm!tokenname=secret` (the token id, an `=`, then the secret)",
    );
    expect(JSON.stringify(error) + String(error.stack)).not.toContain("secretvalue");
  });

  it("names an unreadable CA file", () => {
    const error = failure(() =>
      parseConnectionConfig(
        { endpoint: "https://pve1:8006", apiToken: TOKEN, caCert: "/nope.pem" },
        {
          env: {},
          readFile: () => {
            throw Object.assign(new Error("x"), { code: "ENOENT" });
          },
        },
      ),
    );
    expect(error.message).toBe(
      "Proxmox connection config: caCert file /nope.pem cannot be read (ENOENT)",
    );
  });

  it("takes a password login from config or PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD", () => {
    const fromConfig = parseConnectionConfig(
      { endpoint: "https://pve1:8006", username: " ops@pve ", password: " pass word " },
      { env: {} },
    );
    expect(fromConfig.login).toMatchObject({ kind: "password", username: "ops@pve" });
    // A password is taken as written: spaces can be part of it.
    expect(fromConfig.login.kind === "password" && fromConfig.login.password.reveal()).toBe(
      " pass word ",
    );
    const fromEnv = parseConnectionConfig(
      { endpoint: "https://pve1:8006" },
      { env: { PROXMOX_VE_USERNAME: "root@pam", PROXMOX_VE_PASSWORD: "pw" } },
    );
    expect(fromEnv.login).toMatchObject({ kind: "password", username: "root@pam" });
  });

  it("refuses a token and a password together, naming both settings", () => {
    const inConfig = failure(() =>
      parseConnectionConfig(
        { endpoint: "https://pve1:8006", apiToken: TOKEN, username: "ops@pve", password: "pw-1" },
        { env: {} },
      ),
    );
    expect(inConfig.code).toBe("CONFIG");
    expect(inConfig.message).toBe(
      "Proxmox connection config: apiToken and username and password are both set in the " +
        "config: a login is an API token or a username and password, not both. Remove one.",
    );
    const inEnv = failure(() =>
      parseConnectionConfig(
        { endpoint: "https://pve1:8006" },
        { env: { PROXMOX_VE_API_TOKEN_FILE: "/run/t", PROXMOX_VE_PASSWORD: "pw-1" } },
      ),
    );
    expect(inEnv.message).toBe(
      "Proxmox connection config: PROXMOX_VE_API_TOKEN_FILE and PROXMOX_VE_PASSWORD are both " +
        "set in the environment: a login is an API token or a username and password, not both. " +
        "Remove one.",
    );
    expect(JSON.stringify(inConfig) + String(inConfig.stack) + inEnv.message).not.toContain("pw-1");
  });

  it("takes the whole login from the config when it names one, never half from the environment", () => {
    const config = parseConnectionConfig(
      { endpoint: "https://pve1:8006", username: "ops@pve", password: "pw" },
      { env: { PROXMOX_VE_API_TOKEN: TOKEN } },
    );
    expect(config.login.kind).toBe("password");
    const token = parseConnectionConfig(
      { endpoint: "https://pve1:8006", apiToken: TOKEN },
      { env: { PROXMOX_VE_USERNAME: "ops@pve", PROXMOX_VE_PASSWORD: "pw" } },
    );
    expect(token.login.kind).toBe("token");
  });
});
