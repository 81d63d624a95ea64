import { requirements, type Requirement } from "../../cli/doctor-privileges";

/** What the provider needs against the default simulator: template 9000 on pve1. */
export function needsOn(pveMajor: number): Requirement[] {
  return requirements({
    templateVmid: 9000,
    diskStorages: ["shared"],
    isoStorage: "local",
    bridges: ["vmbr0"],
    nodes: ["pve1"],
    pveMajor,
  });
}
/** The privileges to grant: the first of each any-of list, as the printed role does. */
export const grantable = (needs: readonly Requirement[]): string[] =>
  [...new Set(needs.map((n) => n.privilege.split("|")[0] ?? ""))].sort();
