/**
 * One member's `ProxmoxVm` inputs: the fleet's member settings, the member's override merged
 * over them field by field, and its allocated address on its first NIC.
 */
import * as pulumi from "@pulumi/pulumi";
import type { CloudInitArgs, ProxmoxVmArgs } from "../provider/index";
import { FLEET_OWNED, VmFleetArgsError } from "./fleet-args";
import type { StaticIpv4 } from "./ipv4-pool";

/**
 * Settings every member of a {@link VmFleet} gets: every
 * {@link provider!ProxmoxVmArgs | ProxmoxVmArgs} input (disks, networks, cpu, firmware…) except
 * those the fleet sets per member (`node`, `template`, `name`, `vmid`). The cloud-init hostname
 * is each member's own name.
 */
export type VmFleetMemberArgs = Omit<ProxmoxVmArgs, (typeof FLEET_OWNED)[number] | "cloudInit"> & {
  readonly cloudInit?: Omit<CloudInitArgs, "hostname">;
};

/** An override as the program keyed it (`"2"` or `"web-2"`), for messages. */
export interface MemberOverride {
  readonly key: string;
  readonly args: Partial<VmFleetMemberArgs>;
}

/**
 * The member's settings: each top-level field of the override replaces the fleet's whole (a
 * `networks` override is the member's whole NIC list), then `address` goes on the first NIC.
 *
 * @throws VmFleetArgsError when the program also wrote a static `ipv4` on that NIC.
 */
export function memberArgs(
  fleet: string,
  settings: VmFleetMemberArgs,
  override: MemberOverride | undefined,
  address: StaticIpv4 | undefined,
): VmFleetMemberArgs {
  const merged: VmFleetMemberArgs = { ...settings, ...override?.args };
  if (address === undefined) return merged;
  const writtenAt = (property: "network" | "networks") =>
    override !== undefined && property in override.args
      ? `overrides.${override.key}.${property}`
      : property;
  const onFirstNic = <T extends object>(nic: T, property: string): T => {
    const written = (nic as { ipv4?: unknown }).ipv4;
    if (written !== undefined && written !== "dhcp") {
      throw new VmFleetArgsError(fleet, [
        {
          property: `${property}.ipv4`,
          reason:
            `is static, and the fleet's ipv4 gives this member ${address.address}: leave the ` +
            "first NIC's ipv4 out (or \"dhcp\"), or remove the fleet's ipv4 and address each " +
            "member in its override",
        },
      ]);
    }
    return { ...nic, ipv4: address };
  };
  if (merged.networks !== undefined) {
    const at = `${writtenAt("networks")}[0]`;
    return {
      ...merged,
      networks: resolved(merged.networks, (nics) =>
        nics.length === 0 ? nics : [onFirstNic(nics[0] as object, at), ...nics.slice(1)],
      ),
    };
  }
  return {
    ...merged,
    network: resolved(merged.network ?? {}, (nic) => onFirstNic(nic, writtenAt("network"))),
  };
}

/** `f` of the value: at once when the program wrote it plainly, else once it is known. */
function resolved<T, R>(value: pulumi.Input<T>, f: (plain: T) => R): pulumi.Input<R> {
  if (pulumi.Output.isInstance(value) || value instanceof Promise) {
    return pulumi.output(value).apply((plain) => f(plain as T)) as pulumi.Output<R>;
  }
  return f(value as T);
}
