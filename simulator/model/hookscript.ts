import type { Cluster } from "./cluster.js";
import { volumeType } from "./storage-files.js";

/**
 * PVE::GuestHelpers::check_hookscript (pve-guest-common), which update_vm runs for `hookscript`:
 * the volume must be a snippet (`<storage>:snippets/<file>`), the file must be there and
 * executable. Its die text, or undefined when the script may be used.
 */
export function hookscriptProblem(
  cluster: Cluster,
  node: string,
  volid: string,
): string | undefined {
  const volname = volid.slice(volid.indexOf(":") + 1);
  if (volumeType(volname) !== "snippets") return `'${volid}' is not in the snippets directory`;
  const file = cluster.volume(node, volid);
  if (file === undefined) return `script '${volid}' does not exist`;
  if (file.executable !== true) return `script '${volid}' is not executable`;
  return undefined;
}

/**
 * Puts a snippet on a file-based storage, as an admin copying a script into its `snippets/`
 * directory would: PVE's upload API takes no snippets.
 */
export function putSnippet(
  cluster: Cluster,
  node: string,
  storage: string,
  file: string,
  executable: boolean,
): string {
  if (cluster.storageOn(node, storage) === undefined)
    throw new Error(`no storage '${storage}' on node '${node}'`);
  const volid = `${storage}:snippets/${file}`;
  cluster.putVolume(node, {
    volid,
    storage,
    content: "snippets",
    format: "snippet",
    size: 0,
    ctime: Math.floor(Date.now() / 1000),
    executable,
  });
  return volid;
}
