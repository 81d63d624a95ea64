import type { PveHttpClient } from "../http-client.js";
import * as schemas from "../responses.js";
import type {
  HostResourceCalls,
  MappingType,
  NodeBridge,
  ResourceMapping,
} from "../seam/host-resources.js";

/** {@link HostResourceCalls} over PVE's HTTP API; part of {@link HttpProxmoxApi}. */
export class HttpHostResourceCalls implements HostResourceCalls {
  readonly #http: PveHttpClient;

  constructor(http: PveHttpClient) {
    this.#http = http;
  }

  nodeBridges(node: string): Promise<readonly NodeBridge[]> {
    return this.#http.request("GET", ["nodes", node, "network"], schemas.nodeBridgesSchema, {
      query: { type: "any_bridge" },
    });
  }

  resourceMapping(type: MappingType, id: string): Promise<ResourceMapping> {
    return this.#http.request(
      "GET",
      ["cluster", "mapping", type, id],
      schemas.resourceMappingSchema,
    );
  }
}
