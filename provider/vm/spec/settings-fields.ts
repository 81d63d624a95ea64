/** The provider's own settings: waits, budgets and policies PVE never sees. */
import { z } from "zod";
import { field } from "./field";
import { vmid } from "./placement-fields";

const timeoutsSchema = z.strictObject({
  /** Budget for the clone task, including waiting on a clone already in progress. */
  cloneMs: z
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /** Budget for the guest agent to report an address after start. */
  agentMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Budget for any other single task (start, stop, config, upload, destroy). */
  taskMs: z
    .number()
    .int()
    .positive()
    .default(2 * 60_000),
});

const vmidRange = z
  .strictObject({ min: vmid, max: vmid })
  .refine((r) => r.max >= r.min, "max must not be below min");

/** The provider's own settings, echoed from the inputs. */
export const SETTINGS_FIELDS = {
  vmidRange: field({
    doc: "Where VMIDs are allocated (default 10000–99999).",
    docType: "{ min: number; max: number }",
    schema: vmidRange,
    default: { min: 10_000, max: 99_999 },
    mayBeUnknown: false,
    change: "setting",
    stored: z.object({ min: z.number(), max: z.number() }),
    readBack: { from: "input" },
    example: { valid: { min: 200, max: 299 }, invalid: { min: 300, max: 200 } },
  }),
  waitForIp: field({
    doc: "Wait for the guest agent to report an IPv4 address (default true).",
    docType: "boolean",
    schema: z.boolean(),
    default: true,
    mayBeUnknown: false,
    change: "setting",
    stored: z.boolean(),
    readBack: { from: "input" },
    example: { valid: false, invalid: 1 },
  }),
  rebootPolicy: field({
    doc: "Whether an update may reboot a running VM to apply a change (default `allow`).",
    docType: '"allow" | "never"',
    schema: z.enum(["allow", "never"]),
    default: "allow",
    mayBeUnknown: false,
    change: "setting",
    stored: z.enum(["allow", "never"]),
    readBack: { from: "input" },
    example: { valid: "never", invalid: "sometimes" },
  }),
  nodeDrift: field({
    doc:
      "A VM found on another node than `node` (an HA move, a manual migration) is drift. With " +
      "`moveBack` (default) `up` migrates it back, live when it runs; with `accept` the move is " +
      "accepted and not reported. Never a replacement.",
    docType: '"moveBack" | "accept"',
    schema: z.enum(["moveBack", "accept"]),
    default: "moveBack",
    mayBeUnknown: false,
    change: "setting",
    // States written before the input existed have none.
    stored: z.enum(["moveBack", "accept"]).default("moveBack"),
    readBack: { from: "input" },
    example: { valid: "accept", invalid: "ignore" },
  }),
  adopt: field({
    doc: "Take over a complete VM that carries this resource's identity but is unknown to the stack.",
    docType: "boolean",
    schema: z.boolean(),
    default: false,
    mayBeUnknown: false,
    change: "setting",
    stored: z.boolean(),
    readBack: { from: "input" },
    example: { valid: true, invalid: "true" },
  }),
  timeouts: field({
    doc: "Budgets in milliseconds: the clone task, the guest agent's address, any other task.",
    docType: "{ cloneMs?: number; agentMs?: number; taskMs?: number }",
    schema: timeoutsSchema,
    default: timeoutsSchema.parse({}),
    mayBeUnknown: false,
    change: "setting",
    stored: timeoutsSchema,
    readBack: { from: "input" },
    example: { valid: { agentMs: 60_000 }, invalid: { agentMs: -1 } },
  }),
} as const;
