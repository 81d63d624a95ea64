/**
 * The identities `pulumi-proxmox up` asks the provider to resume although their VMs are complete.
 *
 * A run killed after a VM's mark says `complete` but before the engine's checkpoint leaves the
 * VM out of the state, with only a pending create in its place. The next create would take it for
 * someone else's VM (lost state, `--replace`) and refuse with CONFLICT. The CLI reads the pending
 * creates from the stack, keeps those whose identity no resource in the state holds, and passes
 * them in {@link RESUME_ENV}; the engine starts the provider with the CLI's environment.
 */

/** Comma-separated identity hashes (16 hex digits each). */
export const RESUME_ENV = "PULUMI_PROXMOX_RESUME";

const IDENTITY = /^[0-9a-f]{16}$/;

/** The identities listed in {@link RESUME_ENV}; anything that is not an identity is ignored. */
export function resumableIdentities(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Set<string> {
  const listed = (env[RESUME_ENV] ?? "").split(",").map((id) => id.trim().toLowerCase());
  return new Set(listed.filter((id) => IDENTITY.test(id)));
}
