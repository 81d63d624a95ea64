import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** PVE::AccessControl's `$ticket_lifetime`: a login ticket and its CSRF token live two hours. */
export const TICKET_LIFETIME_MS = 2 * 3600 * 1000;
/** Ticket data of a login that still owes its second factor. */
const TFA_PREFIX = "!tfa!";
/** Clock skew PVE tolerates between cluster nodes: tickets up to 5 minutes "from the future". */
const MAX_SKEW_S = 300;

/**
 * Login tickets (`PVE:<userid>:<HEX time>::<signature>`) and CSRF prevention tokens
 * (`<HEX time>:<signature>`) with PVE's shape and age rules. PVE signs tickets with the cluster's
 * RSA key; the simulator uses an HMAC with a key made at start, so a restart logs everyone out.
 */
export class TicketAuthority {
  private readonly key = randomBytes(32);

  constructor(private readonly lifetimeMs: number = TICKET_LIFETIME_MS) {}

  issue(userid: string, now = Date.now()): { ticket: string; csrf: string } {
    const stamp = hexTime(now);
    const data = `PVE:${userid}:${stamp}`;
    return {
      ticket: `${data}::${this.sign(data)}`,
      csrf: `${stamp}:${this.sign(`${stamp}:${userid}`)}`,
    };
  }

  /**
   * The half-ticket of a user with a second factor: it only lets the user answer the challenge
   * (pve-access-control `PVE/API2/AccessControl.pm`, `create_ticket_do`: the ticket data is
   * `!tfa!<challenge>`), so {@link verify} never accepts it for an API call.
   */
  issueTfaChallenge(userid: string, now = Date.now()): { ticket: string; csrf: string } {
    const challenge = Buffer.from(JSON.stringify({ totp: true, user: userid })).toString(
      "base64url",
    );
    return this.issue(`${TFA_PREFIX}${challenge}`, now);
  }

  /** The user the ticket was issued to, or undefined when it is forged, malformed or expired. */
  verify(ticket: string, now = Date.now()): string | undefined {
    const match = /^(PVE:([^\s:]+):([0-9A-F]{8}))::([^:\s]+)$/.exec(ticket);
    if (match === null) return undefined;
    const [, data = "", userid = "", stamp = "", signature = ""] = match;
    if (!this.fresh(stamp, now) || !same(this.sign(data), signature)) return undefined;
    return userid.startsWith(TFA_PREFIX) ? undefined : userid;
  }

  verifyCsrf(userid: string, token: string | undefined, now = Date.now()): boolean {
    const match = /^([0-9A-F]{8}):(\S+)$/.exec(token ?? "");
    if (match === null) return false;
    const [, stamp = "", signature = ""] = match;
    return this.fresh(stamp, now) && same(this.sign(`${stamp}:${userid}`), signature);
  }

  /**
   * PVE's age rule (pve-common `PVE/Ticket.pm` `verify_rsa_ticket` and
   * `verify_csrf_prevention_token`, with the range pve-access-control `PVE/AccessControl.pm`
   * `$get_ticket_age_range` passes: `-$auth_graceperiod` to `$ticket_lifetime`): the age is
   * `time() - <ticket time>` in whole seconds, and both bounds are exclusive. A ticket is thus
   * accepted from 299 s before its time to `lifetime - 1` whole seconds after it.
   */
  private fresh(stamp: string, now: number): boolean {
    const age = Math.floor(now / 1000) - parseInt(stamp, 16);
    return age > -MAX_SKEW_S && age < this.lifetimeMs / 1000;
  }

  private sign(data: string): string {
    return createHmac("sha256", this.key).update(data).digest("base64").replace(/=+$/, "");
  }
}

function hexTime(ms: number): string {
  return Math.floor(ms / 1000)
    .toString(16)
    .toUpperCase()
    .padStart(8, "0");
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
