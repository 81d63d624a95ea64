import { dieError } from "../http/index.js";

/**
 * A change made under one of PVE's cluster config locks (user.cfg's `lock_user_config`, the HA
 * domain's `lock_ha_domain`): a failure inside comes out as `<what>: <reason>`, a 500.
 */
export function lockedChange(what: string, change: () => void): null {
  try {
    change();
  } catch (err) {
    throw dieError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return null;
}
