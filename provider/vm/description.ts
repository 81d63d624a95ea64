/**
 * The description PVE stores for a VM or template the provider made: the user's text, then the
 * mark on a line of its own (`pulumi-proxmox:{…}`). The line's form is stated here once; what a
 * mark holds is its kind's (vm/identity.ts for a VM, template/mark.ts for a template).
 */
export const MARK_PREFIX = "pulumi-proxmox:";
export const MARK_LINE = /^pulumi-proxmox:(\{.*\})\s*$/m;

/** The user's part of a description, without the mark. */
export function userDescription(description: string | undefined): string | undefined {
  if (description === undefined) return undefined;
  const text = description.replace(MARK_LINE, "").replace(/\s+$/, "");
  return text === "" ? undefined : text;
}
