import { z } from "zod";
import type { Login, PasswordLogin, TokenLogin } from "../config.js";
import { PermanentError } from "../errors.js";
import { Secret } from "../secret.js";

/**
 * How the HTTP layer authenticates its requests: the headers for one request, and what to do
 * after a 401. An API token is one fixed header; a password login trades the password for a
 * ticket (`POST /access/ticket`) and keeps it fresh. Nothing here is ever printed: the
 * credentials sit in {@link Secret}s, and {@link RequestAuth.scrub} removes them from any text.
 */
export interface RequestAuth {
  readonly login: Login;
  /** Headers that authenticate one request with `method`. */
  headers(method: string): Promise<Record<string, string>>;
  /**
   * After a 401 to a request sent with `sent`: whether sending it once more, with fresh
   * {@link headers}, can succeed. Rejects when a fresh login itself fails.
   */
  renew(sent: Readonly<Record<string, string>>): Promise<boolean>;
  /** `text` with every credential of this login replaced. */
  scrub(text: string): string;
}

/**
 * When a ticket is traded for a new one. PVE accepts a ticket (and its CSRF token) for two
 * hours after it is issued (pve-access-control `PVE/AccessControl.pm`, `$ticket_lifetime`,
 * checked by `verify_ticket`); renewing at half that leaves an hour of margin for clock skew
 * between the client and the node, and for requests that were already queued.
 */
export const TICKET_RENEW_AFTER_MS = 3600 * 1000;

/** An API token: the `Authorization: PVEAPIToken=…` header on every request; a 401 is final. */
export function tokenAuth(login: TokenLogin): RequestAuth {
  return {
    login,
    headers: () =>
      Promise.resolve({ authorization: `PVEAPIToken=${login.tokenId}=${login.secret.reveal()}` }),
    renew: () => Promise.resolve(false),
    scrub: (text) => login.secret.scrub(text),
  };
}

/**
 * PVE's answer to `POST /access/ticket` (pve-access-control `PVE/API2/AccessControl.pm`,
 * `create_ticket_do`): `NeedTFA` is set when the user has a second factor, and the ticket is then
 * only good for answering the challenge.
 */
export const ticketAnswerSchema = z.looseObject({
  username: z.string(),
  ticket: z.string().optional(),
  CSRFPreventionToken: z.string().optional(),
  NeedTFA: z.union([z.number(), z.boolean()]).optional(),
});

export type TicketAnswer = z.output<typeof ticketAnswerSchema>;

interface Ticket {
  readonly cookie: Secret;
  readonly csrf: Secret;
  readonly issuedAt: number;
}

export interface TicketSessionOptions {
  /** Sends `POST /access/ticket` with the form, unauthenticated; rejects with a classified error. */
  readonly requestTicket: (form: { username: string; password: string }) => Promise<TicketAnswer>;
  /** Default {@link TICKET_RENEW_AFTER_MS}; tests shorten it. */
  readonly renewAfterMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * A password login's tickets: one login at a time whatever the number of callers waiting,
 * renewed once it is {@link TICKET_RENEW_AFTER_MS} old, and renewed at once when PVE answers
 * 401 to the ticket in use (it expired early, or the node restarted with a new key). The ticket
 * travels in the `PVEAuthCookie` cookie, and its CSRF token in the `CSRFPreventionToken` header
 * of every request but a GET (pve-http-server `PVE/APIServer/AnyEvent.pm`, `auth_handler`).
 */
export class TicketSession implements RequestAuth {
  readonly login: PasswordLogin;
  readonly #options: TicketSessionOptions;
  readonly #renewAfterMs: number;
  readonly #now: () => number;
  /** Every ticket issued so far, to scrub: a message may quote one that was since renewed. */
  readonly #issued: Secret[] = [];
  /** The newest ticket. */
  #ticket: Ticket | undefined;
  /** The login under way, which every caller waits for. */
  #login: Promise<Ticket> | undefined;

  constructor(login: PasswordLogin, options: TicketSessionOptions) {
    this.login = login;
    this.#options = options;
    this.#renewAfterMs = options.renewAfterMs ?? TICKET_RENEW_AFTER_MS;
    this.#now = options.now ?? Date.now;
  }

  async headers(method: string): Promise<Record<string, string>> {
    const ticket = await this.#fresh();
    const headers: Record<string, string> = { cookie: cookieOf(ticket) };
    if (method !== "GET") headers["csrfpreventiontoken"] = ticket.csrf.reveal();
    return headers;
  }

  async renew(sent: Readonly<Record<string, string>>): Promise<boolean> {
    const ticket = this.#ticket;
    if (this.#login !== undefined) await this.#login;
    // A request sent with an older ticket only needs the one another caller already got.
    else if (ticket === undefined || sent["cookie"] === cookieOf(ticket)) await this.#start();
    return true;
  }

  scrub(text: string): string {
    let out = this.login.password.scrub(text);
    for (const ticket of this.#issued) out = ticket.scrub(out);
    return out;
  }

  #fresh(): Promise<Ticket> {
    if (this.#login !== undefined) return this.#login;
    const ticket = this.#ticket;
    if (ticket !== undefined && this.#now() - ticket.issuedAt < this.#renewAfterMs) {
      return Promise.resolve(ticket);
    }
    return this.#start();
  }

  /** Logs in; a failed login is not kept, so the next request tries again. */
  #start(): Promise<Ticket> {
    const attempt = this.#loginNow().then(
      (ticket) => {
        this.#ticket = ticket;
        this.#login = undefined;
        return ticket;
      },
      (error: unknown) => {
        this.#login = undefined;
        throw error;
      },
    );
    this.#login = attempt;
    return attempt;
  }

  async #loginNow(): Promise<Ticket> {
    const issuedAt = this.#now();
    const answer = await this.#options.requestTicket({
      username: this.login.username,
      password: this.login.password.reveal(),
    });
    if (answer.NeedTFA !== undefined && answer.NeedTFA !== 0 && answer.NeedTFA !== false) {
      throw new PermanentError(
        "AUTH",
        `POST /access/ticket: user ${this.login.username} has two-factor authentication, which ` +
          `a password login cannot answer. Use an API token instead: create one with ` +
          `\`pveum user token add ${this.login.username} pulumi\`, grant it a role (see ` +
          `\`pulumi-proxmox doctor\`) and set \`proxmox:apiToken\` (or PROXMOX_VE_API_TOKEN) in ` +
          `place of the username and password.`,
        { method: "POST", path: "/access/ticket", status: 200 },
      );
    }
    if (answer.ticket === undefined || answer.CSRFPreventionToken === undefined) {
      throw new PermanentError(
        "BAD_RESPONSE",
        `POST /access/ticket: PVE answered the login of ${this.login.username} without a ticket.`,
        { method: "POST", path: "/access/ticket", status: 200 },
      );
    }
    const cookie = new Secret(answer.ticket);
    this.#issued.push(cookie);
    return { cookie, csrf: new Secret(answer.CSRFPreventionToken), issuedAt };
  }
}

function cookieOf(ticket: Ticket): string {
  return `PVEAuthCookie=${encodeURIComponent(ticket.cookie.reveal())}`;
}
