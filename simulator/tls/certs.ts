import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from "node:crypto";
import { isIP } from "node:net";
import {
  bitString,
  boolean,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  set,
  time,
  tlv,
  utf8,
} from "./der.js";

export interface GeneratedTls {
  readonly caCertPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** SHA-256 fingerprint of the server certificate, `AA:BB:…` as PVE shows it. */
  readonly fingerprint: string;
}

const ECDSA_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));

function name(cn: string): Buffer {
  return sequence(
    set(sequence(oid("2.5.4.10"), utf8("PVE Simulator"))),
    set(sequence(oid("2.5.4.3"), utf8(cn))),
  );
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function keyId(spki: Buffer): Buffer {
  return createHash("sha1").update(spki).digest();
}

function pem(der: Buffer): string {
  const b64 = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${b64.join("\n")}\n-----END CERTIFICATE-----\n`;
}

interface CertSpec {
  readonly subject: string;
  readonly issuer: string;
  readonly publicKey: KeyObject;
  readonly signingKey: KeyObject;
  readonly issuerKeyId: Buffer;
  readonly days: number;
  readonly extensions: Buffer[];
}

function certificate(spec: CertSpec): Buffer {
  const spki = spec.publicKey.export({ type: "spki", format: "der" });
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(serial),
    ECDSA_SHA256,
    name(spec.issuer),
    sequence(time(new Date(now - 86_400_000)), time(new Date(now + spec.days * 86_400_000))),
    name(spec.subject),
    spki,
    explicit(
      3,
      sequence(
        ...spec.extensions,
        extension("2.5.29.14", false, octetString(keyId(spki))),
        extension("2.5.29.35", false, sequence(tlv(0x80, spec.issuerKeyId))),
      ),
    ),
  );
  const signature = sign("sha256", tbs, spec.signingKey);
  return sequence(tbs, ECDSA_SHA256, bitString(signature));
}

/** A fresh CA and a server certificate for `host` (plus localhost, 127.0.0.1 and ::1). */
export function generateTls(host: string): GeneratedTls {
  const ca = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const server = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const caKeyId = keyId(ca.publicKey.export({ type: "spki", format: "der" }));
  const caDer = certificate({
    subject: "PVE Simulator CA",
    issuer: "PVE Simulator CA",
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caKeyId,
    days: 3650,
    extensions: [
      extension("2.5.29.19", true, sequence(boolean(true))),
      // keyCertSign | cRLSign
      extension("2.5.29.15", true, tlv(0x03, Buffer.from([1, 0x06]))),
    ],
  });
  const names = new Set(["localhost", "127.0.0.1", "::1", host]);
  const altNames = [...names].map((n) => {
    if (isIP(n) === 4) return tlv(0x87, Buffer.from(n.split(".").map(Number)));
    if (isIP(n) === 6) {
      const x509 = new URL(`http://[${n}]`).hostname.slice(1, -1);
      const full = x509.includes("::") ? expandV6(x509) : x509.split(":");
      return tlv(
        0x87,
        Buffer.from(full.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255])),
      );
    }
    return tlv(0x82, Buffer.from(n, "latin1"));
  });
  const serverDer = certificate({
    subject: host,
    issuer: "PVE Simulator CA",
    publicKey: server.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caKeyId,
    days: 365,
    extensions: [
      extension("2.5.29.19", true, sequence()),
      // digitalSignature
      extension("2.5.29.15", true, tlv(0x03, Buffer.from([7, 0x80]))),
      extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))),
      extension("2.5.29.17", false, sequence(...altNames)),
    ],
  });
  const certPem = pem(serverDer);
  return {
    caCertPem: pem(caDer),
    certPem,
    keyPem: server.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    fingerprint: new X509Certificate(certPem).fingerprint256,
  };
}

function expandV6(text: string): string[] {
  const [head = "", tail = ""] = text.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === "" ? [] : tail.split(":");
  return [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
}
