/** What a template's state holds: its inputs (for diff and replacement), where it is, and its image. */
import { z } from "zod";
import type { TemplateInputs } from "./template-inputs";

export interface TemplateState extends TemplateInputs {
  readonly vmid: number;
  readonly vmName: string;
  readonly identityHash: string;
  readonly imageVolid: string;
  /** The template's boot disk as PVE stores it, e.g. `local-lvm:base-100-disk-0,size=2G`. */
  readonly disk: string;
}

const stateSchema = z.looseObject({
  vmid: z.number(),
  node: z.string(),
  vmName: z.string(),
  identityHash: z.string(),
  imageVolid: z.string(),
  importStorage: z.string(),
  storage: z.string(),
  disk: z.string(),
  timeouts: z.looseObject({ downloadMs: z.number(), taskMs: z.number() }),
});

export function parseTemplateState(props: Readonly<Record<string, unknown>>): TemplateState {
  return stateSchema.parse(props) as unknown as TemplateState;
}
