/**
 * The check of a {@link VmFleet}'s own inputs (count, nodes, placement, addresses, overrides),
 * before anything registers. The members' VM settings are passed through and checked by each
 * member's own `ProxmoxVm` check, like a single VM's.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { failuresOfIssues, type CheckFailure } from "../provider/entry";
import { allocateIpv4, ipv4PoolSchema, type StaticIpv4 } from "./ipv4-pool";
import { childName } from "./naming";
import { countSchema, nodeLoadSchema, nodesSchema, placementSchema } from "./placement";

/** The `ProxmoxVm` inputs the fleet sets for each member itself, so members cannot take them. */
export const FLEET_OWNED = ["node", "template", "name", "vmid"] as const;

/** A fleet's inputs are wrong: every problem, each naming the property as the program wrote it. */
export class VmFleetArgsError extends TypeError {
  constructor(
    readonly fleet: string,
    readonly failures: readonly CheckFailure[],
  ) {
    super(`VmFleet ${fleet}: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    this.name = "VmFleetArgsError";
  }
}

/** The fleet's own inputs, checked, with each override keyed by its member's index. */
export interface FleetPlan {
  readonly count: number;
  readonly placement: z.output<typeof placementSchema>;
  /** Member `i`'s first-NIC address; absent without `ipv4`. */
  readonly addresses?: readonly StaticIpv4[];
  /** Member `i`'s override, with its key as written (for messages). */
  readonly overrides: ReadonlyMap<number, { readonly key: string; readonly args: object }>;
}

const isInput = (value: unknown) => pulumi.Output.isInstance(value) || value instanceof Promise;

function fleetArgsSchema(fleet: string) {
  return z
    .object({
      count: countSchema,
      nodes: nodesSchema,
      placement: placementSchema.default("round-robin"),
      // Known only at deployment when an Output; placeMembers checks it then.
      nodeLoads: z
        .union([z.custom<unknown>(isInput), z.record(z.string(), nodeLoadSchema)])
        .optional(),
      ipv4: ipv4PoolSchema.optional(),
      overrides: z
        .record(z.string(), z.record(z.string(), z.unknown(), { error: "must be an object" }))
        .optional(),
    })
    .superRefine((args, ctx) => {
      if (args.placement === "least-loaded" && args.nodeLoads === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["placement"],
          message:
            'is "least-loaded", which needs nodeLoads: each node\'s guest count from one ' +
            "cluster listing (nodeLoadsFromListing)",
        });
      }
      // A refinement runs beside other problems: allocate only from a well-formed pool and count.
      const wellFormed =
        countSchema.safeParse(args.count).success && ipv4PoolSchema.safeParse(args.ipv4).success;
      if (args.ipv4 !== undefined && wellFormed) {
        const allocated = allocateIpv4(args.ipv4, args.count);
        if (!Array.isArray(allocated)) {
          ctx.addIssue({
            code: "custom",
            path: ["ipv4", ...allocated.path],
            message: allocated.message,
          });
        }
      }
      const members = new Map<number, string>();
      for (const [key, override] of Object.entries(args.overrides ?? {})) {
        const problem = overrideProblem(fleet, key, override, args.count, members);
        if (problem !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["overrides", key, ...problem.path],
            message: problem.message,
          });
        }
      }
    });
}

/**
 * The fleet's own inputs, checked before anything registers.
 *
 * @throws VmFleetArgsError naming every property that is wrong.
 */
export function planFleet(fleet: string, args: Readonly<Record<string, unknown>>): FleetPlan {
  const parsed = fleetArgsSchema(fleet).safeParse(args);
  if (!parsed.success) {
    throw new VmFleetArgsError(fleet, failuresOfIssues(parsed.error, args, "VmFleet"));
  }
  const { count, placement, ipv4, overrides = {} } = parsed.data;
  const addresses = ipv4 === undefined ? undefined : allocateIpv4(ipv4, count);
  return {
    count,
    placement,
    ...(Array.isArray(addresses) ? { addresses } : {}),
    overrides: new Map(
      Object.entries(overrides).map(([key, override]) => [
        memberIndex(fleet, key) as number,
        { key, args: override },
      ]),
    ),
  };
}

/**
 * The member an `overrides` key names: its index (`"2"`), or its name (`"web-2"`), which is the
 * index behind the fleet's name. Undefined when the key names neither.
 */
function memberIndex(fleet: string, key: string): number | undefined {
  const index = key.startsWith(`${fleet}-`) ? key.slice(fleet.length + 1) : key;
  return /^(0|[1-9]\d*)$/.test(index) ? Number(index) : undefined;
}

function overrideProblem(
  fleet: string,
  key: string,
  override: Readonly<Record<string, unknown>>,
  count: number,
  seen: Map<number, string>,
): { path: string[]; message: string } | undefined {
  const index = memberIndex(fleet, key);
  const members = count === 0 ? "none" : `${childName(fleet, 0)} to ${childName(fleet, count - 1)}`;
  if (index === undefined) {
    return {
      path: [],
      message: `names no member: key overrides by index (0, 1, …) or by member name (members: ${members})`,
    };
  }
  if (index >= count) {
    return {
      path: [],
      message: `is member ${index}, but count is ${count} (members: ${members}): remove the override or raise count`,
    };
  }
  const other = seen.get(index);
  if (other !== undefined) {
    return { path: [], message: `overrides member ${index}, as overrides.${other} does: keep one` };
  }
  seen.set(index, key);
  const owned = FLEET_OWNED.find((property) => property in override);
  if (owned !== undefined) {
    return {
      path: [owned],
      message: `is set by the fleet for each member and cannot be overridden`,
    };
  }
  return undefined;
}
