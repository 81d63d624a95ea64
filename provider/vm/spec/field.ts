/**
 * What the spec says about one `ProxmoxVm` input. Everything else — `check`'s schema, `diff`'s
 * lists and defaults, the stored state, the config `converge` writes, the drift `read` reports,
 * the args' docs and docs/inputs.md — is derived from these entries (docs/design.md, "One spec
 * per input").
 */
import type { z } from "zod";
import type { VmConfig } from "../../pve/api/proxmox-api";

/**
 * How a change of the field reaches the VM:
 * - `replace`: placement, part of the VM's identity; a new VM is created before the old goes.
 * - `replace-delete-first`: a pinned name or VMID, which old and new VM cannot share.
 * - `hot`: written in place; PVE applies it to a running VM at once, and the guest sees nothing
 *   new (tags, notes, the pool, power).
 * - `hotplug`: written in place; PVE plugs the device (a disk, a NIC) into a running VM at once
 *   or grows it, so the guest sees new hardware: an update that makes one is disruptive
 *   (`rollbackOnFailure` snapshots the VM before it).
 * - `reboot`: written in place; PVE keeps it under `/pending` on a running VM, so it applies at
 *   the next reboot (which `rebootPolicy` allows or not).
 * - `setting`: a setting of the provider itself (waits, budgets, policies); PVE never sees it.
 */
export type Change = "replace" | "replace-delete-first" | "hot" | "hotplug" | "reboot" | "setting";

/** What `read` sees of a VM: its config, whether the guest runs, and its pool. */
export interface ObservedVm {
  readonly config: VmConfig;
  readonly running: boolean;
  /** The resource pool the VM is in; absent when it is in none, or when nobody asked. */
  readonly pool?: string | undefined;
}

/**
 * How the field is read back for drift. Only a field the program sets is read (the template's
 * own settings are not drift), so `read` is called only with the input's value.
 * - `mark`: placement, as the VM's own mark records it (what the VM was created for).
 * - `input`: nothing on PVE to compare with; the input is echoed.
 * - `vm`: read from the VM, in the input's terms, with PVE's normalisations undone.
 */
export type ReadBack<T> =
  | { readonly from: "mark" }
  | { readonly from: "input" }
  | {
      readonly from: "vm";
      readonly read: (vm: ObservedVm, input: T) => T | undefined;
      /**
       * The input that asks for all the VM itself sets of the field (`pulumi-proxmox import`
       * reads the VM back with it): the sub-fields and list entries its config holds, PVE's
       * defaults left out. Undefined when the VM sets none of it. Without a probe, a field with
       * one config key is read back when the VM's config holds that key (the read must not
       * need the input then); a shorthand is imported as its full form; any other is not.
       */
      readonly probe?: (vm: ObservedVm) => T | undefined;
    };

/** What converge knows besides the inputs when it formats a config value. */
export interface Seen {
  /** Each NIC's MAC (net0, net1…) as PVE generated it, kept unless the user pins one. */
  readonly macs: Readonly<Record<string, string | undefined>>;
  /** The VM's config as converge read it: a disk written again keeps the volume PVE allocated. */
  readonly config?: VmConfig;
}

/** The PVE config key a field is written to, and how. */
export interface ConfigKey<T> {
  readonly key: string;
  readonly format: (value: T, seen: Seen) => string | number;
  /** Whether PVE's current value already says what `wanted` says (default: the same text). */
  readonly same?: (current: unknown, wanted: string | number) => boolean;
}

/** A field written to several PVE keys (disks → scsi0, scsi1; NICs → net0, net1). */
export interface ConfigKeys<T> {
  /** The keys and values the field wants now. */
  readonly format: (value: T, seen: Seen) => Readonly<Record<string, string | number>>;
  /** Whether PVE's current value of `key` already says what `wanted` says (default: same text). */
  readonly same?: (key: string, current: unknown, wanted: string | number) => boolean;
}

/**
 * When PVE applies a key of a `reboot` field to a running VM at once instead of keeping it under
 * `/pending` (qemu-server's `vmconfig_hotplug_pending`): `always` (cgroup limits, balloon
 * target), or when the VM's current `hotplug` has the feature (and, for memory, NUMA is on).
 */
export type HotWhen =
  | "always"
  | { readonly hotplug: "cpu" | "memory" | "network" | "disk" | "usb"; readonly numa?: true };

export interface FieldSpec<S extends z.ZodType = z.ZodType> {
  /** The doc comment of the input, as users read it in their editor and in docs/inputs.md. */
  readonly doc: string;
  /** The input's type as docs/inputs.md shows it. */
  readonly docType: string;
  /**
   * The member's type in `ProxmoxVmArgs` when it is an interface documented member by member
   * (`NetworkArgs`, in provider/vm/nested-args.ts); otherwise the schema's input type.
   */
  readonly argType?: string;
  /** The value's schema: every format rule and message of the input. */
  readonly schema: S;
  readonly required?: boolean;
  readonly default?: z.output<S>;
  /** Whether the value may still be unknown during a preview (false: it must be known). */
  readonly mayBeUnknown: boolean;
  readonly change: Change;
  /** How `diff` compares the value, when PVE stores it normalised (tags). */
  readonly normalize?: (value: unknown) => unknown;
  /** A change PVE cannot make, refused by `check` with this reason (a disk shrink). */
  readonly refuse?: (old: unknown, now: z.output<S>) => string | undefined;
  /**
   * A combination with other inputs PVE cannot take (OVMF without an EFI disk), refused by
   * `check` with this reason, which names the other input. Unknown values are the caller's to
   * skip: `check` passes the parsed inputs, where a preview may still hold unknowns.
   */
  readonly conflict?: (
    now: z.output<S>,
    inputs: Readonly<Record<string, unknown>>,
  ) => string | undefined;
  /** The schema of the value in the stored state (lenient: the state only has to be read). */
  readonly stored: z.ZodType;
  readonly config?: ConfigKey<z.output<S>>;
  readonly configKeys?: ConfigKeys<z.output<S>>;
  /** The keys of a `reboot` field that a running VM takes at once, and when. */
  readonly hotKeys?: Readonly<Record<string, HotWhen>>;
  /** Inputs that say the same thing another way (a shorthand): `check` refuses both. */
  readonly excludes?: readonly string[];
  /** The keys the field wants gone (a disk marked `remove`), deleted while PVE still has them. */
  readonly configRemoves?: (value: z.output<S>) => readonly string[];
  /**
   * The PVE keys the field owns when it is set: any of them that `configKeys` no longer wants is
   * deleted (a NIC dropped from `networks`).
   */
  readonly ownsKeys?: RegExp;
  /**
   * The input this one is a shorthand of (`network` of `networks`): `check` refuses both
   * together, and when the full form is set the shorthand is neither written nor read back.
   */
  readonly shorthandOf?: string;
  /**
   * Removing the input undoes what it did (the VM leaves its pool), so `diff` reports it as a
   * change. Without it, a removed input leaves the VM as it is.
   */
  readonly undoneWhenRemoved?: true;
  /** An input `check` refuses together with this one (as written, before defaults), and why. */
  readonly refusedBeside?: { readonly input: string; readonly reason: string };
  readonly readBack: ReadBack<z.output<S>>;
  /** A value `check` accepts and one it refuses: the spec's test runs both. */
  readonly example: { readonly valid: unknown; readonly invalid: unknown };
}

/** PVE's value says what `wanted` says when it reads as the same text (a number as a string). */
export const sameText = (current: unknown, wanted: string | number): boolean =>
  current !== undefined && String(current) === String(wanted);

/** Declares a field; `const` keeps its flags literal so the input types can be derived. */
export function field<const F extends FieldSpec<S>, S extends z.ZodType>(
  spec: F & { readonly schema: S },
): F {
  return spec;
}
