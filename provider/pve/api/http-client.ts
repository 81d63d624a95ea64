import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { loginName, type ConnectionConfig } from "../config.js";
import { PermanentError } from "../errors.js";
import { classify } from "../classify.js";
import { sharedDispatcher, type RegistryLogger } from "./dispatcher-registry.js";
import { ticketAnswerSchema, TicketSession, tokenAuth, type RequestAuth } from "./login.js";
import type { MultipartBody } from "./multipart.js";
import type { PveParams } from "./proxmox-api.js";
import * as schemas from "./responses.js";
import { classifyTransportError } from "./transport-error.js";

/**
 * One request to PVE's JSON API over undici, authenticated by the connection's login: no
 * retries (retry.ts decides after classification) except the one resend after a 401 that a new
 * login can fix; every answer goes through a zod schema and every failure through `classify` /
 * `classifyTransportError`, scrubbed of the credentials.
 */

export interface HttpApiOptions {
  readonly connection: ConnectionConfig;
  /** A dispatcher to use instead of the shared pool (tests pass undici's MockAgent). */
  readonly dispatcher?: Dispatcher | undefined;
  /** Per-request budget for ordinary calls. pveproxy itself gives up on a proxied call at 30 s. */
  readonly timeoutMs?: number | undefined;
  /** Per-request budget for an ISO upload. */
  readonly uploadTimeoutMs?: number | undefined;
  /** Cancels every request of this instance (see {@link PveHttpClient.withSignal}). */
  readonly signal?: AbortSignal | undefined;
  /** Receives the insecure-TLS warning. */
  readonly logger?: RegistryLogger | undefined;
  /** A password login's ticket age at which it is renewed (login.ts); tests shorten it. */
  readonly ticketRenewAfterMs?: number | undefined;
  /** The login state to share (views made by {@link PveHttpClient.withSignal}). */
  readonly auth?: RequestAuth | undefined;
}

export interface RequestSpec {
  readonly query?: PveParams | undefined;
  readonly form?: PveParams | undefined;
  /** Makes the body: a request answered 401 is sent again after a new login, with a new body. */
  readonly upload?: (() => MultipartBody) | undefined;
  readonly timeoutMs?: number | undefined;
  /** Sent without credentials: the login itself. */
  readonly anonymous?: boolean | undefined;
}

interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly text: string;
}

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** PVE's form and query encoding: booleans are sent as 1/0, the form its API schema documents. */
function encodeParams(params: PveParams): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    out.append(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  return out.toString();
}

export class PveHttpClient {
  readonly #connection: ConnectionConfig;
  readonly #auth: RequestAuth;
  readonly #dispatcher: Dispatcher;
  readonly #options: HttpApiOptions;
  readonly #timeoutMs: number;

  constructor(options: HttpApiOptions) {
    this.#options = options;
    this.#connection = options.connection;
    const { login } = options.connection;
    this.#auth =
      options.auth ??
      (login.kind === "token"
        ? tokenAuth(login)
        : new TicketSession(login, {
            requestTicket: (form) =>
              this.request("POST", ["access", "ticket"], ticketAnswerSchema, {
                form,
                anonymous: true,
              }),
            renewAfterMs: options.ticketRenewAfterMs,
          }));
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#dispatcher =
      options.dispatcher ??
      sharedDispatcher(
        {
          origin: options.connection.origin,
          caCert: options.connection.caCert,
          insecure: options.connection.insecure,
          connections: options.connection.maxConnections,
        },
        options.logger,
      );
  }

  /** A view of this client whose requests are cancelled by `signal`; it shares pool and login. */
  withSignal(signal: AbortSignal | undefined): PveHttpClient {
    return new PveHttpClient({
      ...this.#options,
      dispatcher: this.#dispatcher,
      auth: this.#auth,
      signal,
    });
  }

  /** Never prints a credential: `util.inspect(api)` shows only the origin and who logs in. */
  toJSON(): { origin: string; login: string } {
    return { origin: this.#connection.origin, login: loginName(this.#connection.login) };
  }

  /** Budget of an ISO upload. */
  get uploadTimeoutMs(): number {
    return this.#options.uploadTimeoutMs ?? 600_000;
  }

  async request<S extends z.ZodType>(
    method: Method,
    segments: readonly (string | number)[],
    schema: S,
    spec: RequestSpec = {},
  ): Promise<z.output<S>> {
    const path = `/${segments.join("/")}`;
    const sent = spec.anonymous ? {} : await this.#auth.headers(method);
    let answer = await this.#send(method, segments, spec, sent);
    // An expired or revoked ticket: one new login, then the request once more.
    if (answer.status === 401 && !spec.anonymous && (await this.#auth.renew(sent))) {
      answer = await this.#send(method, segments, spec, await this.#auth.headers(method));
    }
    const { status, statusText, text } = answer;

    let json: unknown = undefined;
    if (text.trim() !== "") {
      try {
        json = JSON.parse(text);
      } catch {
        json = status >= 200 && status < 300 ? undefined : this.#auth.scrub(text);
        if (status >= 200 && status < 300) {
          throw new PermanentError(
            "BAD_RESPONSE",
            `${method} ${path}: PVE answered ${status} with a body that is not JSON. Is the ` +
              `endpoint a PVE API (https://<host>:8006)?`,
            { method, path, status },
          );
        }
      }
    }
    if (status >= 200 && status < 300) return schemas.parseData(schema, json, method, path);
    // A server could echo our credentials in its reason or body: scrub before use.
    const scrubbed =
      json === undefined
        ? undefined
        : (JSON.parse(this.#auth.scrub(JSON.stringify(json))) as unknown);
    throw classify(
      method,
      path,
      status,
      this.#auth.scrub(statusText),
      scrubbed,
      this.#connection.login,
    );
  }

  /** One exchange with PVE; a failure below HTTP is thrown classified and scrubbed. */
  async #send(
    method: Method,
    segments: readonly (string | number)[],
    spec: RequestSpec,
    auth: Readonly<Record<string, string>>,
  ): Promise<Answer> {
    const path = `/${segments.join("/")}`;
    const encoded = `/api2/json/${segments.map((s) => encodeURIComponent(String(s))).join("/")}`;
    const query =
      spec.query && Object.keys(spec.query).length > 0 ? `?${encodeParams(spec.query)}` : "";
    const timeoutMs = spec.timeoutMs ?? this.#timeoutMs;
    const external = this.#options.signal;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = external ? AbortSignal.any([external, timeout]) : timeout;
    const headers: Record<string, string> = { accept: "application/json", ...auth };
    let body: string | Readable | undefined;
    if (spec.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = encodeParams(spec.form);
    } else if (spec.upload !== undefined) {
      const upload = spec.upload();
      headers["content-type"] = upload.contentType;
      headers["content-length"] = String(upload.contentLength);
      body = upload.body;
    }
    try {
      if (external?.aborted) throw external.reason;
      const response = await this.#dispatcher.request({
        origin: this.#connection.origin,
        method,
        path: `${encoded}${query}`,
        headers,
        body: body ?? null,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      return { status: response.statusCode, statusText: response.statusText, text };
    } catch (error) {
      throw classifyTransportError({
        method,
        path,
        error,
        aborted: external?.aborted === true,
        timedOut: timeout.aborted,
        timeoutMs,
        origin: this.#connection.origin,
        secret: this.#auth,
      });
    }
  }
}
