import { describe, expect, it } from "vitest";
import { TICKET_LIFETIME_MS, TicketAuthority } from "../../../simulator/auth/tickets.js";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe("auth/tickets", () => {
  it("issues PVE-shaped tickets and CSRF tokens that verify for their user", () => {
    const tickets = new TicketAuthority();
    const { ticket, csrf } = tickets.issue("alice@pve", T0);
    expect(ticket).toMatch(/^PVE:alice@pve:[0-9A-F]{8}::\S+$/);
    expect(csrf).toMatch(/^[0-9A-F]{8}:\S+$/);
    expect(tickets.verify(ticket, T0)).toBe("alice@pve");
    expect(tickets.verifyCsrf("alice@pve", csrf, T0)).toBe(true);
    expect(tickets.verifyCsrf("bob@pve", csrf, T0)).toBe(false);
  });

  // pve-common PVE/Ticket.pm verify_rsa_ticket: whole-second age, -300 < age < 7200.
  it("accepts both while the whole-second age is above -300 s and below PVE's two hours", () => {
    const tickets = new TicketAuthority();
    const { ticket, csrf } = tickets.issue("alice@pve", T0 + 999);
    expect(tickets.verify(ticket, T0 + TICKET_LIFETIME_MS - 1)).toBe("alice@pve");
    expect(tickets.verifyCsrf("alice@pve", csrf, T0 + TICKET_LIFETIME_MS - 1)).toBe(true);
    expect(tickets.verify(ticket, T0 + TICKET_LIFETIME_MS)).toBeUndefined();
    expect(tickets.verifyCsrf("alice@pve", csrf, T0 + TICKET_LIFETIME_MS)).toBe(false);
    expect(tickets.verify(ticket, T0 - 299_000)).toBe("alice@pve");
    expect(tickets.verify(ticket, T0 - 300_000)).toBeUndefined();
  });

  it("refuses a ticket with a changed user or one signed by another simulator", () => {
    const tickets = new TicketAuthority();
    const { ticket } = tickets.issue("alice@pve", T0);
    expect(tickets.verify(ticket.replace("alice@pve", "root@pam"), T0)).toBeUndefined();
    expect(new TicketAuthority().verify(ticket, T0)).toBeUndefined();
  });

  it("never accepts a second-factor challenge ticket for an API call", () => {
    const tickets = new TicketAuthority();
    const { ticket } = tickets.issueTfaChallenge("alice@pve", T0);
    expect(ticket).toMatch(/^PVE:!tfa!\S+:[0-9A-F]{8}::\S+$/);
    expect(tickets.verify(ticket, T0)).toBeUndefined();
  });
});
