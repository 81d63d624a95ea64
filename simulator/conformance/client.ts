/**
 * The recorder's own PVE client: token or password login, a VMID range guard, and a record of
 * every request and answer. It is deliberately not the provider's client (the simulator never
 * imports the provider): the conformance run must see PVE's answers as any other client would.
 */
import { Agent, request } from "undici";

export type Login =
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "password"; readonly username: string; readonly password: string };

export interface ClientOptions {
  /** `https://host:8006`, without `/api2/json`. */
  readonly endpoint: string;
  readonly login: Login;
  readonly caCert?: string | undefined;
  readonly insecure?: boolean | undefined;
  /** The only VMIDs the scenario may touch; `readOnly` VMIDs may be read, never written. */
  readonly range: { readonly min: number; readonly max: number };
  readonly readOnly: readonly number[];
}

export interface Exchange {
  readonly step: string;
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly status: number;
  /** `data` of a JSON answer, or null. */
  readonly data: unknown;
  /** PVE's error text: `message`, the reason phrase, or per-parameter `errors`. */
  readonly error: string | undefined;
}

/** A request the guard refused: the scenario asked for a VMID outside its range. */
export class OutOfRangeError extends Error {}

export class ConformanceClient {
  readonly exchanges: Exchange[] = [];
  readonly #agent: Agent;
  #auth: Record<string, string> = {};

  constructor(private readonly options: ClientOptions) {
    this.#agent = new Agent({
      connect: {
        ...(options.caCert === undefined ? {} : { ca: options.caCert }),
        rejectUnauthorized: options.insecure !== true,
      },
    });
  }

  /** Logs in: a token is a header; a password is exchanged for a ticket and a CSRF token. */
  async login(): Promise<void> {
    const login = this.options.login;
    if (login.kind === "token") {
      this.#auth = { authorization: `PVEAPIToken=${login.token}` };
      return;
    }
    const answer = await this.call("login", "POST", "/access/ticket", {
      username: login.username,
      password: login.password,
    });
    const data = answer.data as { ticket?: string; CSRFPreventionToken?: string } | null;
    if (answer.status !== 200 || data?.ticket === undefined) {
      throw new Error(`login as ${login.username} failed: ${answer.status} ${answer.error ?? ""}`);
    }
    this.#auth = {
      cookie: `PVEAuthCookie=${data.ticket}`,
      csrfpreventiontoken: data.CSRFPreventionToken ?? "",
    };
  }

  /** Refuses any path that names a VMID outside the range (or writes a read-only one). */
  guard(method: string, path: string): void {
    const match = /\/qemu\/(\d+)(?:\/|$)/.exec(path);
    if (match === null) return;
    const vmid = Number(match[1]);
    const { min, max } = this.options.range;
    if (vmid >= min && vmid <= max) return;
    if (method === "GET" && this.options.readOnly.includes(vmid)) return;
    if (method === "POST" && /\/clone$/.test(path) && this.options.readOnly.includes(vmid)) return;
    throw new OutOfRangeError(
      `refused ${method} ${path}: VMID ${vmid} is outside --vmid-range ${min}-${max}`,
    );
  }

  async call(
    step: string,
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    params: Record<string, string | number> = {},
    record = true,
  ): Promise<Exchange> {
    this.guard(method, path);
    const form = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const query = new URLSearchParams(form).toString();
    const inQuery = method === "GET" || method === "DELETE";
    const url = `${this.options.endpoint}/api2/json${path}${inQuery && query ? `?${query}` : ""}`;
    const res = await request(url, {
      method,
      dispatcher: this.#agent,
      headers: {
        ...this.#auth,
        ...(inQuery ? {} : { "content-type": "application/x-www-form-urlencoded" }),
      },
      ...(inQuery ? {} : { body: query }),
    });
    const text = await res.body.text();
    const body = text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : null;
    const errors = body?.["errors"];
    const exchange: Exchange = {
      step,
      method,
      path,
      params: form,
      status: res.statusCode,
      data: body?.["data"] ?? null,
      error:
        res.statusCode < 300
          ? undefined
          : (errorText(body?.["message"]) ??
            (errors === undefined ? undefined : JSON.stringify(errors)) ??
            text.trim()),
    };
    if (record) this.exchanges.push(exchange);
    return exchange;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

const errorText = (value: unknown): string | undefined =>
  typeof value === "string" ? value.trim() : undefined;
