import type { IncomingMessage } from "node:http";
import type { ParamSchema, ParamSpec, Params, RawParams } from "./params.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** A successful answer with extra envelope members (e.g. the task log's `total`). */
export class Reply {
  constructor(
    readonly data: unknown,
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {}
}

/** What a permission check sees: raw (unvalidated) parameters, as PVE's check runs first. */
export interface PermissionInput {
  readonly tokenId: string;
  readonly raw: RawParams;
}

export interface RouteContext<S> {
  readonly sim: S;
  readonly tokenId: string;
  readonly params: Params;
  readonly req: IncomingMessage;
}

export interface Route<S> {
  readonly method: HttpMethod;
  /** Path below /api2/json with `{name}` parameters; a trailing `{volume*}` takes the rest. */
  readonly path: string;
  readonly params: ParamSchema;
  /** For families like `net[n]`: the spec of a parameter name not listed in `params`. */
  readonly dynamicParam?: (name: string) => ParamSpec | undefined;
  /** Throws a 403 PveError when the token lacks what PVE checks for this endpoint. */
  readonly permission?: (sim: S, input: PermissionInput) => void;
  /** The handler reads the (multipart) body itself; the server must not parse it. */
  readonly streamsBody?: boolean;
  readonly handler: (ctx: RouteContext<S>) => unknown;
}

interface Compiled<S> {
  readonly route: Route<S>;
  readonly segments: readonly string[];
}

/** Matches `/nodes/pve1/qemu/100/config` against the route table. */
export class Router<S> {
  private readonly compiled: Compiled<S>[] = [];

  add(...routes: Route<S>[]): void {
    for (const route of routes) {
      this.compiled.push({ route, segments: route.path.split("/").filter((s) => s !== "") });
    }
  }

  /** The route for method+path, or undefined (PVE answers 501 either way). */
  match(
    method: string,
    path: string,
  ): { route: Route<S>; pathParams: Record<string, string> } | undefined {
    const parts = path.split("/").filter((s) => s !== "");
    for (const { route, segments } of this.compiled) {
      if (route.method !== method) continue;
      const pathParams = matchSegments(segments, parts);
      if (pathParams !== undefined) return { route, pathParams };
    }
    return undefined;
  }
}

function matchSegments(
  segments: readonly string[],
  parts: readonly string[],
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] ?? "";
    const part = parts[i];
    if (segment.endsWith("*}")) {
      // PVE's fragmentDelimiter '': every remaining segment joins into one parameter.
      if (part === undefined) return undefined;
      out[segment.slice(1, -2)] = parts.slice(i).join("/");
      return out;
    }
    if (part === undefined) return undefined;
    if (segment.startsWith("{")) out[segment.slice(1, -1)] = part;
    else if (segment !== part) return undefined;
  }
  return parts.length === segments.length ? out : undefined;
}
