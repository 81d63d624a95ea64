import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateTls } from "../../../simulator/tls/certs.js";

describe("certs", () => {
  const tls = generateTls("127.0.0.1");
  const ca = new X509Certificate(tls.caCertPem);
  const server = new X509Certificate(tls.certPem);

  it("makes a self-signed CA certificate", () => {
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe("O=PVE Simulator\nCN=PVE Simulator CA");
    expect(ca.verify(ca.publicKey)).toBe(true);
  });

  it("makes a server certificate signed by the CA for loopback names", () => {
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toBe(
      "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
    expect(server.checkIP("127.0.0.1")).toBe("127.0.0.1");
  });

  it("reports the server certificate's SHA-256 fingerprint", () => {
    expect(tls.fingerprint).toBe(server.fingerprint256);
    expect(tls.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });
});
