/**
 * The provider process's connection to Proxmox: the stack config parsed, the HTTP client, and
 * the retrying, coalescing and tracing layers around it, in one OperationContext. Loaded by
 * glue/runtime.ts on the first call that talks to Proxmox, so calls that do not (check, diff) never
 * load undici.
 *
 * @internal
 */
import {
  coalescedApi,
  sharedListingCoalescer,
  sharedNodeListings,
  sharedNodeStorages,
} from "./api/coalesced-api";
import { HttpProxmoxApi } from "./api/http-api";
import { retryingApi } from "./api/retrying-api";
import { tracedApi } from "./api/traced-api";
import { connectionInput, parseConnectionConfig } from "./config";
import { operationContext, type ListingAge, type OperationContext } from "./context";
import { engineSignal } from "../glue/engine-watch";

/** The stack config as the provider host hands it to `configure`. */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/** Also used by integration tests, which build a context per simulator. */
export function buildContext(config: ConfigReader): OperationContext {
  const connection = parseConnectionConfig(connectionInput((key) => config.get(key)));
  const debug = process.env["PULUMI_PROXMOX_DEBUG"] === "1";
  const http = new HttpProxmoxApi({
    connection,
    logger: { warn: (m: string) => console.warn(m) },
    signal: engineSignal(),
  });
  const traced = tracedApi(http, { debug: (m) => (debug ? console.error(m) : undefined) });
  const coalescer = sharedListingCoalescer(connection.origin);
  const progress = (message: string) => console.log(`pulumi-proxmox: ${message}`);
  // Retried below the coalescer, so callers sharing one listing also share its retries.
  const api = coalescedApi(
    retryingApi(traced, { progress }),
    coalescer,
    sharedNodeListings(connection.origin),
    sharedNodeStorages(connection.origin),
  );
  const listVms = async (options?: ListingAge) => {
    if (options?.fresh) coalescer.invalidate();
    if (options?.anyAge) return coalescer.get(() => api.clusterVms(), { anyAge: true });
    return api.clusterVms();
  };
  // The engine shows the dynamic provider's stdout as info lines: the user's progress view.
  return operationContext(
    api,
    listVms,
    {
      progress,
      warn: (message) => console.warn(`pulumi-proxmox: warning: ${message}`),
    },
    { heavyTasksPerNode: connection.heavyTasksPerNode },
  );
}
