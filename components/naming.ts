/**
 * Pure naming rules of {@link VmFleet}'s children. A child's logical name is part of its
 * identity (its URN, its VM name and its first VMID are derived from it), so these functions
 * must never change their output for an existing input: renaming a child replaces its VM.
 */

/** The logical name of the fleet's child number `index` (0-based): `${fleetName}-${index}`. */
export function childName(fleetName: string, index: number): string {
  if (!Number.isInteger(index) || index < 0) {
    throw new RangeError(`[index] must be a non-negative integer, got ${index}`);
  }
  return `${fleetName}-${index}`;
}

/**
 * A DNS label (RFC 1123: 1–63 of a–z, 0–9 and `-`, not starting or ending with `-`) derived
 * from a child name: lower-cased, every run of other characters (hyphens included) turned into
 * one `-`, trimmed to 63 characters. The guest's cloud-init hostname of a fleet member.
 *
 * @throws RangeError when nothing of the name is left (e.g. `"__"`).
 */
export function hostnameFor(name: string): string {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 63)
    .replace(/-+$/, "");
  if (label === "") {
    throw new RangeError(`cannot derive a hostname from the name ${JSON.stringify(name)}`);
  }
  return label;
}
