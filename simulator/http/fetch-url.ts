import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";

/** What a finished GET returned: the status line and, for 2xx, the body. */
export interface FetchedUrl {
  readonly status: number;
  readonly statusText: string;
  /** Content-Length when the server sent one. */
  readonly length: number | undefined;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/** A transport failure, with the exit code wget gives it (4 network, 5 TLS). */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly wgetExit: number,
  ) {
    super(message);
    this.name = "FetchError";
  }
}

/**
 * Whether `host` is a loopback address. Names other than `localhost` are not resolved: a lookup
 * would already reach the network, which a test simulator must never do unless told to.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return isIP(bare) === 6 && (bare === "::1" || /^::ffff:127\./i.test(bare));
}

const MAX_REDIRECTS = 20;
const IDLE_TIMEOUT_MS = 30_000;

/**
 * GETs `url` as wget does for download-url: follows redirects (each hop checked with `allowHost`),
 * reports received bytes through `onData`, and resolves with non-2xx answers too so the caller
 * can word them as wget does.
 */
export async function fetchUrl(
  url: string,
  options: {
    readonly verifyCertificates: boolean;
    readonly allowHost: (host: string) => void;
    readonly onResponse?: (res: IncomingMessage) => void;
    readonly onData?: (received: number) => void;
  },
): Promise<FetchedUrl> {
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    options.allowHost(current.hostname);
    const res = await get(current, options.verifyCertificates);
    const location = res.headers.location;
    if (res.statusCode !== undefined && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      current = new URL(location, current);
      continue;
    }
    options.onResponse?.(res);
    const chunks: Buffer[] = [];
    let received = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        received += chunk.length;
        options.onData?.(received);
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new FetchError(`Read error at byte ${received} (${reason}).`, 4);
    }
    const length = res.headers["content-length"];
    return {
      status: res.statusCode ?? 0,
      statusText: res.statusMessage ?? "",
      length: length === undefined ? undefined : Number(length),
      contentType: res.headers["content-type"],
      body: Buffer.concat(chunks),
    };
  }
  throw new FetchError(`${MAX_REDIRECTS} redirections exceeded.`, 8);
}

function get(url: URL, verifyCertificates: boolean): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req =
      url.protocol === "https:"
        ? httpsRequest(url, { rejectUnauthorized: verifyCertificates }, resolve)
        : httpRequest(url, resolve);
    // A server that stops answering fails the download instead of holding the task (and the
    // simulator's close, which waits for running tasks) forever.
    req.setTimeout(IDLE_TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error("Connection timed out"), { code: "ETIMEDOUT" })),
    );
    req.on("error", (err: NodeJS.ErrnoException) => {
      const tls = err.code !== undefined && /CERT|SELF_SIGNED|SSL|TLS/.test(err.code);
      const reason =
        err.code === "ECONNREFUSED"
          ? "Connection refused"
          : err.code === "ETIMEDOUT"
            ? "Connection timed out"
            : err.message;
      reject(
        new FetchError(
          tls
            ? `ERROR: cannot verify ${url.hostname}'s certificate: ${err.message}`
            : `Connecting to ${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}... failed: ${reason}.`,
          tls ? 5 : 4,
        ),
      );
    });
    req.end();
  });
}
