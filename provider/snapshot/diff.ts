/**
 * diff: a new description is written in place; another VM, another name or a change of
 * `includeRam` is another snapshot, made after the old one is deleted (PVE refuses a second
 * snapshot of one name). The node is where the VM is, not what the snapshot is: a migration
 * changes nothing. A VMID still unknown is the preview of an update of the VM (a dynamic
 * resource's outputs are unknown until it ran): no change is claimed, and `up`, which diffs again
 * once the VM is done, replaces the snapshot only if the VMID did change.
 */
import { isUnknown } from "../inputs/unknown";
import { snapshotNameFor } from "./inputs";

const name = (props: Readonly<Record<string, unknown>>): unknown =>
  isUnknown(props["name"]) || isUnknown(props["resourceName"])
    ? props["name"]
    : (props["name"] ?? snapshotNameFor(String(props["resourceName"])));

export function diffSnapshot(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean } {
  const differs = (a: unknown, b: unknown) =>
    isUnknown(b) || JSON.stringify(a) !== JSON.stringify(b);
  const replaces = [
    ...(!isUnknown(news["vmid"]) && differs(olds["vmid"], news["vmid"]) ? ["vmid"] : []),
    ...(differs(name(olds), name(news)) ? ["name"] : []),
    ...(differs(olds["includeRam"] ?? false, news["includeRam"] ?? false) ? ["includeRam"] : []),
  ];
  const described = differs(olds["description"] ?? "", news["description"] ?? "");
  return { changes: replaces.length > 0 || described, replaces, deleteBeforeReplace: true };
}
