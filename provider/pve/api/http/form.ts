import type { PveParams } from "../proxmox-api.js";

/** Drops undefined values so optional inputs are simply not sent. */
export function defined(params: Record<string, string | number | boolean | undefined>): PveParams {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}
