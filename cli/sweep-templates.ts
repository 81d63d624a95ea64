/**
 * sweep's view of CloudImageTemplates in PVE (which of them the states own is sweep-owners'):
 * every VM carrying a template mark (a finished template, or one a killed run left before its
 * conversion), and every image a template downloaded (`pp-tmpl-<identity>.<format>` as `import`
 * content). Read-only.
 */
import { imageIdentityOf, readTemplateMark, type ProxmoxApi } from "../provider/entry";
import { findVolumes, type ScannedVm } from "./sweep-scan";

export interface MarkedTemplate {
  readonly vmid: number;
  readonly node: string;
  readonly name: string;
  readonly identity: string;
  /** `complete` once converted and marked; anything else is a create a run left unfinished. */
  readonly phase: string;
  /** Whether PVE holds it as a template yet. */
  readonly template: boolean;
  /** The image its mark names, e.g. `local:import/pp-tmpl-0123456789abcdef.qcow2`. */
  readonly image: string;
  /** The storage of its boot disk: where linked clones of it live. */
  readonly storage: string;
  readonly lock?: string | undefined;
}

/** Every template carrying our mark, and every VM a create left before its conversion. */
export function scanTemplates(vms: readonly ScannedVm[]): MarkedTemplate[] {
  const out: MarkedTemplate[] = [];
  for (const { row, config } of vms) {
    const mark = readTemplateMark(config.description);
    if (mark === undefined || !isTemplateItself(config.template === true, mark.phase, config)) {
      continue;
    }
    out.push({
      vmid: row.vmid,
      node: row.node,
      name: config.name ?? "",
      identity: mark.id,
      phase: mark.phase,
      template: config.template === true,
      image: mark.image,
      storage: /^([^:,]+):/.exec(String(config["scsi0"] ?? ""))?.[1] ?? "",
      ...(config.lock === undefined ? {} : { lock: config.lock }),
    });
  }
  return out.sort((a, b) => a.vmid - b.vmid);
}

/**
 * PVE copies the description into a clone, so a clone of a template carries its mark too. The
 * template itself is the one PVE holds as a template; a VM that is not one yet is ours only when
 * its mark says the create did not finish (a finished create converts before it marks complete)
 * and its disk is not a linked clone's (`base-…/vm-…`).
 */
function isTemplateItself(template: boolean, phase: string, config: Record<string, unknown>) {
  if (template) return true;
  return phase !== "complete" && !String(config["scsi0"] ?? "").includes("/");
}

export interface TemplateImage {
  readonly volid: string;
  readonly node: string;
  readonly storage: string;
  /** The identity of the template that downloaded it. */
  readonly identity: string;
}

/** Every image a template downloaded, on every online node's import storages; a shared one once. */
export async function templateImages(api: ProxmoxApi): Promise<TemplateImage[]> {
  return findVolumes(api, "import", (volid) => {
    const identity = imageIdentityOf(volid);
    return identity === undefined ? undefined : { identity };
  });
}
