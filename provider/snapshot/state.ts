/** What a snapshot's state holds: its inputs (for diff and replacement) and what PVE reports. */
import { z } from "zod";
import type { SnapshotInputs } from "./inputs";

export interface SnapshotState extends SnapshotInputs {
  /** The name PVE knows it by (the `name` input, or the one derived from the resource's). */
  readonly snapshotName: string;
  /** UNIX seconds when PVE took it. */
  readonly snaptime: number;
  /** Whether it holds the RAM (only a running VM's is saved). */
  readonly vmstate: boolean;
  /**
   * When the VM was last rolled back to it outside this resource (UNIX seconds of the
   * `qmrollback` task), as read saw it: a changed value is a rollback nobody declared.
   */
  readonly rolledBackAt?: number | undefined;
}

const stateSchema = z.looseObject({
  resourceName: z.string(),
  vmid: z.number(),
  node: z.string(),
  name: z.string().optional(),
  description: z.string(),
  includeRam: z.boolean(),
  snapshotName: z.string(),
  snaptime: z.number(),
  vmstate: z.boolean(),
  rolledBackAt: z.number().optional(),
});

export function parseSnapshotState(props: Readonly<Record<string, unknown>>): SnapshotState {
  return stateSchema.parse(props) as unknown as SnapshotState;
}
