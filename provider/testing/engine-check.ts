import * as pulumi from "@pulumi/pulumi";
import { ENGINE_CHECK_RESOURCE, RESOURCE_MODULE } from "../glue/resource-types";
import * as provider from "./engine-check-provider";

export interface EngineCheckArgs {
  /** Any text; the resource echoes it and a digest of it as outputs. */
  readonly message: pulumi.Input<string>;
}

/**
 * A tiny dynamic resource with no external effects. It proves that a Pulumi engine, its Node.js
 * language host and the dynamic-provider host can load this package by name and run a full
 * create / refresh / diff / delete cycle — before any Proxmox endpoint is involved.
 */
export class EngineCheck extends pulumi.dynamic.Resource {
  declare readonly message: pulumi.Output<string>;
  declare readonly digest: pulumi.Output<string>;

  constructor(name: string, args: EngineCheckArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { digest: undefined, ...args },
      opts,
      RESOURCE_MODULE,
      ENGINE_CHECK_RESOURCE,
    );
  }
}
