import * as pulumi from "@pulumi/pulumi";
import { CONNECTION_SETTINGS, type ConnectionSetting } from "../pve/connection-settings";
import { recordProvider } from "./template-cluster";

/**
 * The settings of one Proxmox cluster, named as in stack config (`proxmox:<name>`); each falls
 * back to the same `PROXMOX_VE_*` variable. Checked by the provider exactly as stack config is,
 * with the same messages, on its first call to the cluster.
 */
export interface ProviderArgs {
  /** `https://pve1.example.com:8006`: the API's origin (`/api2/json` is optional). */
  readonly endpoint?: pulumi.Input<string>;
  /** `user@realm!tokenid=secret`. Stored as a secret. */
  readonly apiToken?: pulumi.Input<string>;
  /** A file holding the token (e.g. a mounted CI secret). */
  readonly apiTokenFile?: pulumi.Input<string>;
  /** `user@realm`, for a password login instead of a token. */
  readonly username?: pulumi.Input<string>;
  /** That user's password. Stored as a secret. */
  readonly password?: pulumi.Input<string>;
  /** PEM text or a file path: the cluster's CA, when it is not publicly trusted. */
  readonly caCert?: pulumi.Input<string>;
  /** Skip TLS verification (a lab only): a warning is printed on every run. */
  readonly insecure?: pulumi.Input<boolean>;
  /** Requests sent to the endpoint at once, 1–64 (default 8). */
  readonly maxConnections?: pulumi.Input<number>;
  /** Clones and migrations run at once per node, 1–64 (default: no bound). */
  readonly heavyTasksPerNode?: pulumi.Input<number>;
}

// Every setting is an argument, and every argument a setting: a new setting cannot be left out.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everySetting: Same<keyof ProviderArgs, ConnectionSetting> = true;
void everySetting;

/**
 * A Proxmox cluster to manage, for a program that manages more than the one stack config
 * describes. Pass it as the `provider` option of `ProxmoxVm`, `CloudImageTemplate` or `VmFleet`
 * (which hands it to its members); each explicit provider runs in a process of its own, with
 * its own connection, login and listings.
 *
 * ```ts
 * const dc2 = new Provider("dc2", {
 *   endpoint: "https://pve.dc2.example.com:8006",
 *   apiToken: config.requireSecret("dc2Token"),
 * });
 * new ProxmoxVm("web-dc2", { node: "pve1", template: 9000 }, { provider: dc2 });
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  constructor(name: string, args: ProviderArgs = {}, opts?: pulumi.ResourceOptions) {
    // The dynamic-provider host reads a provider's inputs as its config, by the same
    // `proxmox:<name>` keys the default provider gets from the stack config.
    super("pulumi-nodejs", name, providerInputs(args), opts);
    recordProvider(this, name);
  }
}

/** The inputs as config text, the secret settings wrapped so that the state encrypts them. */
function providerInputs(args: ProviderArgs): pulumi.Inputs {
  const inputs: Record<string, pulumi.Input<string | undefined>> = {};
  for (const name of Object.keys(CONNECTION_SETTINGS) as ConnectionSetting[]) {
    const value = args[name];
    if (value === undefined) continue;
    const text = pulumi.output(value).apply((v) => (v === undefined ? undefined : String(v)));
    inputs[`proxmox:${name}`] = CONNECTION_SETTINGS[name].secret ? pulumi.secret(text) : text;
  }
  return inputs;
}
