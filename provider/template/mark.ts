/**
 * A template's identity and mark. The identity covers the owner and everything that makes two
 * templates differ (URL, checksum, node, storages, hardware), so a replacement made
 * create-before-delete never finds the template it replaces, and the downloaded image's name,
 * derived from it, is never shared by two templates. The mark, in the template's description as
 * a VM's is, records the identity and the phase, so an interrupted create resumes and a lost
 * state is found.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { phaseSchema, readMarkOf, vmNameFor, type Phase } from "../vm/identity";
import { redactUrls } from "./redact";
import {
  IMAGE_FORMATS,
  imageFormatOf,
  TEMPLATE_INPUT_KEYS,
  type TemplateInputs,
} from "./template-inputs";

const templateMarkSchema = z.object({
  v: z.literal(1),
  kind: z.literal("template"),
  id: z.string().regex(/^[0-9a-f]{16}$/),
  phase: phaseSchema,
  node: z.string(),
  url: z.string(),
  /** The downloaded image, e.g. `local:import/pp-tmpl-0123456789abcdef.qcow2`. */
  image: z.string(),
});

export type TemplateMark = z.infer<typeof templateMarkSchema>;

/** Where a template and its image live, and how they are named: all derived from the inputs. */
export interface TemplatePlan {
  readonly identity: string;
  readonly vmName: string;
  /** The image's file name in the import storage. */
  readonly imageFile: string;
  readonly imageVolid: string;
}

/** A downloaded image's file name: the prefix, the template's identity, the format. */
const IMAGE_PREFIX = "pp-tmpl-";
const IMAGE_VOLID = new RegExp(
  `:import/${IMAGE_PREFIX}([0-9a-f]{16})\\.(?:${IMAGE_FORMATS.join("|")})$`,
);

/** The identity of the template that downloaded `volid`; undefined for any other volume. */
export function imageIdentityOf(volid: string): string | undefined {
  return IMAGE_VOLID.exec(volid)?.[1];
}

export function planOf(inputs: TemplateInputs): TemplatePlan {
  const owner = inputs.identity;
  const canonical = JSON.stringify([
    "template",
    owner.project,
    owner.stack,
    owner.name,
    ...TEMPLATE_INPUT_KEYS.map((key) => inputs[key] ?? ""),
  ]);
  const identity = createHash("sha256").update(canonical).digest("hex").slice(0, 16);
  const imageFile = `${IMAGE_PREFIX}${identity}.${imageFormatOf(inputs.url) ?? "qcow2"}`;
  return {
    identity,
    vmName: inputs.name ?? vmNameFor(owner, identity),
    imageFile,
    imageVolid: `${inputs.importStorage}:import/${imageFile}`,
  };
}

export function templateMark(
  inputs: TemplateInputs,
  plan: TemplatePlan,
  phase: Phase,
): TemplateMark {
  return {
    v: 1,
    kind: "template",
    id: plan.identity,
    phase,
    node: inputs.node,
    // Anyone with VM.Audit reads the description: a pre-signed URL's query stays out of it.
    url: redactUrls(inputs.url),
    image: plan.imageVolid,
  };
}

export function readTemplateMark(description: string | undefined): TemplateMark | undefined {
  return readMarkOf(templateMarkSchema, description);
}
