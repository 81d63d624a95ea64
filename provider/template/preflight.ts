/**
 * Before any download: the PVE release can import the image, and the two storages exist on the
 * node with the content each step needs. Each failure names the input and what to do.
 */
import type { OperationContext } from "../pve/context";
import { PermanentError } from "../pve/errors";
import type { TemplateInputs } from "./template-inputs";

/** `import` content takes qcow2/raw/vmdk from PVE 8.4 on (before: OVA only, or no import at all). */
export const IMPORT_MIN_RELEASE = { major: 8, minor: 4 } as const;

/** Whether PVE `version` (`8.4.1`) imports qcow2, raw and vmdk images over the API. */
export function importsDiskImages(version: string): boolean {
  const [major = 0, minor = 0] = version.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  const min = IMPORT_MIN_RELEASE;
  return major > min.major || (major === min.major && minor >= min.minor);
}

export async function preflightTemplate(ctx: OperationContext, inputs: TemplateInputs) {
  const { version } = await ctx.api.version();
  const min = IMPORT_MIN_RELEASE;
  if (!importsDiskImages(version)) {
    throw new PermanentError(
      "UNSUPPORTED",
      `url: PVE ${version} cannot import a disk image over the API: that needs PVE ` +
        `${min.major}.${min.minor} or later (import content for qcow2, raw and vmdk). Upgrade the ` +
        `cluster, or make the template by hand and give ProxmoxVm its VMID.`,
      { node: inputs.node },
    );
  }
  const storages = await ctx.api.nodeStorages(inputs.node);
  const need = (property: "importStorage" | "storage", content: string, what: string) => {
    const name = inputs[property];
    const storage = storages.find((s) => s.storage === name);
    if (storage === undefined) {
      throw new PermanentError(
        "INVALID_PARAM",
        `${property}: storage ${name} does not exist on node ${inputs.node} (or the API token ` +
          `lacks Datastore.Audit on /storage/${name}). Name a storage of that node.`,
        { node: inputs.node },
      );
    }
    if (!storage.content.includes(content)) {
      throw new PermanentError(
        "UNSUPPORTED",
        `${property}: storage ${name} on node ${inputs.node} does not take ${content} content, ` +
          `which ${what} needs. Add it (Datacenter → Storage → ${name} → Content) or name ` +
          `another storage.`,
        { node: inputs.node },
      );
    }
  };
  need("importStorage", "import", "the downloaded image");
  need("storage", "images", "the template's disk");
}
