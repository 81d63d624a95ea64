/**
 * Password login: pve-access-control `PVE/API2/AccessControl.pm` (`create_ticket`). The answer's
 * ticket goes into the `PVEAuthCookie` cookie and its `CSRFPreventionToken` into the header of
 * every write (see auth/authenticate.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { requirePrivs } from "../auth/check.js";
import type { SimContext } from "../context.js";
import { PveError, splitList, type Route } from "../http/index.js";
import { CLUSTER } from "../model/host.js";

export const accessTicketRoutes: Route<SimContext>[] = [
  {
    method: "POST",
    path: "/access/ticket",
    params: {
      username: { type: "string", maxLength: 64 },
      password: { type: "string" },
      realm: { type: "string", optional: true, maxLength: 32 },
      otp: { type: "string", optional: true },
      path: { type: "string", optional: true, maxLength: 64 },
      privs: { type: "string", optional: true, maxLength: 64 },
      "new-format": { type: "boolean", optional: true },
      "tfa-challenge": { type: "string", optional: true },
    },
    handler: async ({ sim, params }) => {
      const name = String(params["username"]);
      const realm = params["realm"];
      const username = realm !== undefined && !name.includes("@") ? `${name}@${realm}` : name;
      const password = String(params["password"]);
      // A valid ticket of the same user as password renews it, as the web UI does every 15 min.
      const renewal = sim.tickets.verify(password) === username;
      if (!renewal && !sim.tokens.checkPassword(username, password)) {
        await sleep(sim.options.authFailureDelayMs);
        throw new PveError(401, "authentication failure");
      }
      const path = params["path"];
      const privs = params["privs"];
      if (path !== undefined && privs !== undefined) {
        // Ticket check mode (used by the VNC proxy): verify privileges, issue nothing.
        requirePrivs(sim, username, String(path), splitList(String(privs)));
        return { username };
      }
      if (!renewal && sim.tokens.hasTfa(username)) {
        // create_ticket_do: the password was right, but the ticket only opens the TFA challenge.
        const { ticket, csrf } = sim.tickets.issueTfaChallenge(username);
        return { username, ticket, CSRFPreventionToken: csrf, NeedTFA: 1 };
      }
      const { ticket, csrf } = sim.tickets.issue(username);
      return { username, ticket, CSRFPreventionToken: csrf, clustername: CLUSTER.name };
    },
  },
];
