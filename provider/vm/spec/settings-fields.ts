/** The provider's own settings: waits, budgets and policies PVE never sees. */
import { z } from "zod";
import { field } from "./field";
import { vmid } from "./placement-fields";

/** `true`, or the VMID of an existing VM to take over (provider/vm/steps/adopt-vm.ts). */
const adoptSchema = z.union([z.boolean(), z.strictObject({ vmid })]);

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

/**
 * `true`, or how many of its snapshots to keep and whether they hold the guest's RAM
 * (provider/vm/rollback/protect.ts).
 */
const rollbackSchema = z.union([
  z.boolean(),
  z.strictObject({
    keep: z.number().int("must be a whole number").min(0).max(10).optional(),
    includeRam: z.boolean().optional(),
  }),
]);

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
  rollbackOnFailure: field({
    doc:
      "Before a disruptive update (a reboot, a disk or NIC change, firmware, machine, the seed) " +
      "snapshot the VM; when the update fails or the VM does not come back, roll back to it and " +
      "fail with the cause. `{ keep: N }` keeps the last N snapshots of successful updates; " +
      "`includeRam` saves the running guest's RAM with it (slower, and as large as its memory).",
    docType: "boolean | { keep?: number; includeRam?: boolean }",
    schema: rollbackSchema,
    default: false,
    mayBeUnknown: false,
    change: "setting",
    // States written before the input existed have none.
    stored: rollbackSchema.default(false),
    readBack: { from: "input" },
    example: { valid: { keep: 2, includeRam: false }, invalid: { keep: -1 } },
  }),
  adopt: field({
    doc:
      "`{ vmid }` takes over an existing VM this stack did not make (no clone): only the inputs " +
      "the program sets are written, and its description keeps its text. `true` takes over a " +
      "complete VM that carries this resource's identity but is unknown to the stack.",
    docType: "boolean | { vmid: number }",
    schema: adoptSchema,
    default: false,
    mayBeUnknown: false,
    change: "setting",
    // States written before `{ vmid }` existed hold a boolean.
    stored: adoptSchema,
    readBack: { from: "input" },
    example: { valid: { vmid: 4321 }, invalid: { vmid: 42 } },
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
