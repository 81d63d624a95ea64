import { channel } from "node:diagnostics_channel";
import { isProxmoxError } from "../errors.js";
import type { ProxmoxApi } from "./proxmox-api.js";

/**
 * A decorator over any {@link ProxmoxApi} that writes one debug line per call: method, node,
 * VMID, UPID, duration and outcome code. It never logs arguments, bodies or headers: a config
 * update can carry cloud-init passwords. The same record is published on the
 * `pulumi-proxmox:api` diagnostics channel, in undici's style, for whoever subscribes.
 */

export interface TraceRecord {
  readonly method: string;
  readonly node?: string | undefined;
  readonly vmid?: number | undefined;
  readonly upid?: string | undefined;
  readonly durationMs: number;
  /** `ok`, or the error's code (`BUG` for an error that is not a ProxmoxError). */
  readonly outcome: string;
  readonly status?: number | undefined;
}

export interface TraceLogger {
  debug(message: string): void;
}

const traceChannel = channel("pulumi-proxmox:api");

const isUpid = (value: unknown): value is string =>
  typeof value === "string" && value.startsWith("UPID:");

/** Only identifiers are read from the arguments: node, VMID, UPID. Nothing else. */
function identify(args: readonly unknown[]): Pick<TraceRecord, "node" | "vmid" | "upid"> {
  const [first, second] = args;
  if (typeof first === "object" && first !== null) {
    const request = first as { node?: unknown; vmid?: unknown };
    return {
      node: typeof request.node === "string" ? request.node : undefined,
      vmid: typeof request.vmid === "number" ? request.vmid : undefined,
    };
  }
  return {
    node: typeof first === "string" ? first : undefined,
    vmid: typeof second === "number" ? second : undefined,
    upid: isUpid(second) ? second : undefined,
  };
}

function formatTrace(record: TraceRecord): string {
  const parts = [`pve ${record.method}`];
  if (record.node !== undefined) parts.push(`node=${record.node}`);
  if (record.vmid !== undefined) parts.push(`vmid=${record.vmid}`);
  if (record.upid !== undefined) parts.push(`upid=${record.upid}`);
  parts.push(`${Math.round(record.durationMs)}ms`, record.outcome);
  if (record.status !== undefined) parts.push(`status=${record.status}`);
  return parts.join(" ");
}

export function tracedApi(
  inner: ProxmoxApi,
  log: TraceLogger,
  now: () => number = () => performance.now(),
): ProxmoxApi {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return async (...args: unknown[]) => {
        const started = now();
        const ids = identify(args);
        const emit = (outcome: string, extra: Partial<TraceRecord>) => {
          const record: TraceRecord = {
            method: property,
            ...ids,
            ...extra,
            durationMs: now() - started,
            outcome,
          };
          log.debug(formatTrace(record));
          if (traceChannel.hasSubscribers) traceChannel.publish(record);
        };
        try {
          // Called on the target itself: its private fields do not exist on the proxy.
          const result: unknown = await (value as (...a: unknown[]) => unknown).apply(target, args);
          emit("ok", isUpid(result) ? { upid: result } : {});
          return result;
        } catch (error) {
          const known = isProxmoxError(error);
          emit(known ? error.code : "BUG", {
            status: known ? error.status : undefined,
            upid: ids.upid ?? (known ? error.context.upid : undefined),
          });
          throw error;
        }
      };
    },
  });
}
