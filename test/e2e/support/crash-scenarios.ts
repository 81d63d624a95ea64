/**
 * The operations the crash harness interrupts: for each, the program the stack starts with, the
 * program the crashed command runs, the command, and what must be left once the user recovered.
 */
import { createHash } from "node:crypto";
import type { Simulator, SimulatorOptions } from "../../../simulator";
import { DEFAULT_TEMPLATES } from "../../../simulator/model/defaults";
import { IMPORT_STORAGES } from "../../simulator/support/image-server";
import type { Expected } from "./inventory";
import { guestVms } from "./proxmox-stack";

export const OPERATIONS = [
  "create",
  "create-linked",
  "update",
  "replace",
  "move-back",
  "delete",
  "template-create",
  "template-delete",
  "cross-node-create",
  "disk-update",
  "adopt",
  "snapshot-create",
  "snapshot-delete",
  "protected-update",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The cloud image the image server hands the simulator's download-url. */
export const IMAGE = { path: "/debian-12.qcow2", bytes: Buffer.alloc(64 * 1024, 7) };

interface VmShape {
  readonly node?: string;
  readonly template: number;
  readonly cores: number;
  readonly packages: string;
  readonly disks?: readonly Record<string, unknown>[];
  /** A linked clone (`clone: { full: false }`): its mode is part of the identity recovery finds. */
  readonly linked?: boolean;
  /** Other inputs, as the program writes them (`rollbackOnFailure`, `storage`, `diskSize`). */
  readonly more?: Readonly<Record<string, unknown>>;
}

const BASE: VmShape = { template: 9000, cores: 1, packages: "htop" };

/**
 * A linked clone (a qcow2 overlay on the NFS storage, which PVE can snapshot) with a VmSnapshot
 * of it, or without one.
 */
const snapshotProgram = (withSnapshot: boolean) => () =>
  vmProgram({ ...BASE, linked: true }) +
  (withSnapshot
    ? `const { VmSnapshot } = require("pulumi-proxmox");
new VmSnapshot("before-upgrade", { vm, description: "crash" });
`
    : "");

function vmProgram(shape: VmShape): string {
  const disks = shape.disks === undefined ? "" : `\n  disks: ${JSON.stringify(shape.disks)},`;
  const clone = shape.linked ? "\n  clone: { full: false }," : "";
  const more = Object.entries(shape.more ?? {})
    .map(([key, value]) => `\n  ${key}: ${JSON.stringify(value)},`)
    .join("");
  return `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("crash", {
  node: ${JSON.stringify(shape.node ?? "pve1")},
  template: ${shape.template},
  cores: ${shape.cores},
  memory: 512,
  cloudInit: { packages: [${JSON.stringify(shape.packages)}] },${disks}${clone}${more}
});
exports.vmid = vm.vmid;
`;
}

/** A template's inputs as a program writes them, for the image at `imagesUrl`. */
export function templateArgs(imagesUrl: string) {
  return {
    url: imagesUrl + IMAGE.path,
    checksum: createHash("sha256").update(IMAGE.bytes).digest("hex"),
    checksumAlgorithm: "sha256",
    node: "pve1",
  };
}

function templateProgram(imagesUrl: string): string {
  return `
const { CloudImageTemplate } = require("pulumi-proxmox");
const template = new CloudImageTemplate("crash-image", ${JSON.stringify(templateArgs(imagesUrl))});
exports.vmid = template.vmid;
`;
}

/** A template on pve1's node-local storage: a VM for pve2 is cloned on pve1, then migrated. */
export const LOCAL_TEMPLATE = 9002;
const localTemplate = {
  vmid: LOCAL_TEMPLATE,
  node: "pve1",
  config: {
    ...DEFAULT_TEMPLATES[0]?.config,
    name: "debian-12-local",
    scsi0: `local-lvm:base-${LOCAL_TEMPLATE}-disk-0,size=2G`,
    net0: "virtio=BC:24:11:90:02:00,bridge=vmbr0",
  },
};

/** A VM an admin made outside Pulumi, with two disks, two NICs and text of its own. */
export const LEGACY_VM = 4321;
const WITH_LEGACY_VM: SimulatorOptions = {
  templates: [
    ...DEFAULT_TEMPLATES,
    {
      vmid: LEGACY_VM,
      node: "pve1",
      config: {
        name: "legacy-web",
        cores: 2,
        memory: "1024",
        scsi0: `local-lvm:vm-${LEGACY_VM}-disk-0,size=4G`,
        scsi1: `local-lvm:vm-${LEGACY_VM}-disk-1,size=2G`,
        net0: "virtio=BC:24:11:43:21:00,bridge=vmbr0",
        net1: "e1000=BC:24:11:43:21:01,bridge=vmbr0",
        description: "Legacy web server",
      },
    },
  ],
};

const adoptProgram = () => `
const { ProxmoxVm } = require("pulumi-proxmox");
const vm = new ProxmoxVm("crash", { node: "pve1", adopt: { vmid: ${LEGACY_VM} }, cores: 4 });
exports.vmid = vm.vmid;
`;

export interface Scenario {
  /** The program the stack starts with; `up` runs it when `setup` is set. */
  readonly base: (imagesUrl: string) => string;
  /** The program the crashed command (and its recovery) runs. */
  readonly target: (imagesUrl: string) => string;
  readonly setup: boolean;
  /** An out-of-band change after the setup (the node move). */
  readonly drift?: (sim: Simulator) => void;
  readonly command: readonly string[];
  readonly expected: Expected;
  readonly simOptions?: SimulatorOptions;
}

const vm = (shape: VmShape) => () => vmProgram(shape);
const ONE_VM: Expected = { vms: 1, templates: 0 };
const NOTHING: Expected = { vms: 0, templates: 0 };
const ONE_TEMPLATE: Expected = { vms: 0, templates: 1 };
/** Where a template's image can be downloaded to (`import` content on `local`). */
export const WITH_IMPORTS: SimulatorOptions = { storages: IMPORT_STORAGES };
/** The default templates and {@link LOCAL_TEMPLATE}. */
export const WITH_LOCAL_TEMPLATE: SimulatorOptions = {
  templates: [...DEFAULT_TEMPLATES, localTemplate],
};

const BOOT = { interface: "scsi0", sizeGiB: 4 };
/** The boot disk grown on the template's storage; the update moves and grows it, and adds a disk. */
export const DISKS = {
  before: [BOOT],
  after: [
    { ...BOOT, storage: "local-lvm", sizeGiB: 6 },
    { interface: "scsi1", storage: "local-lvm", sizeGiB: 2 },
  ],
};

/** A VM on lvmthin (which PVE snapshots) whose updates run under a snapshot. */
const PROTECTED = { storage: "local-lvm", diskSize: 4, rollbackOnFailure: true };

export const SCENARIOS: Record<Operation, Scenario> = {
  // The adopted VM is the one VM left; the judge's destroy deletes it like any other.
  adopt: {
    base: adoptProgram,
    target: adoptProgram,
    setup: false,
    command: ["up"],
    expected: ONE_VM,
    simOptions: WITH_LEGACY_VM,
  },
  create: { base: vm(BASE), target: vm(BASE), setup: false, command: ["up"], expected: ONE_VM },
  "create-linked": {
    base: vm({ ...BASE, linked: true }),
    target: vm({ ...BASE, linked: true }),
    setup: false,
    command: ["up"],
    expected: ONE_VM,
  },
  update: {
    base: vm(BASE),
    target: vm({ ...BASE, cores: 2, packages: "curl" }),
    setup: true,
    command: ["up"],
    expected: ONE_VM,
  },
  replace: {
    base: vm(BASE),
    target: vm({ ...BASE, template: 9001 }),
    setup: true,
    command: ["up"],
    expected: ONE_VM,
  },
  "move-back": {
    base: vm(BASE),
    target: vm(BASE),
    setup: true,
    drift: (sim) => {
      for (const vmid of guestVms(sim)) sim.faults.migrateVm(vmid, "pve2");
    },
    // The engine learns of the move only from a refresh.
    command: ["up", "--refresh"],
    expected: ONE_VM,
  },
  delete: {
    base: vm(BASE),
    target: vm(BASE),
    setup: true,
    command: ["destroy"],
    expected: NOTHING,
  },
  "template-create": {
    base: templateProgram,
    target: templateProgram,
    setup: false,
    command: ["up"],
    expected: ONE_TEMPLATE,
    simOptions: WITH_IMPORTS,
  },
  "template-delete": {
    base: templateProgram,
    target: templateProgram,
    setup: true,
    command: ["destroy"],
    expected: NOTHING,
    simOptions: WITH_IMPORTS,
  },
  "cross-node-create": {
    base: vm({ ...BASE, node: "pve2", template: LOCAL_TEMPLATE }),
    target: vm({ ...BASE, node: "pve2", template: LOCAL_TEMPLATE }),
    setup: false,
    command: ["up"],
    expected: ONE_VM,
    simOptions: WITH_LOCAL_TEMPLATE,
  },
  // A reboot and a grow under a snapshot: a kill anywhere, then `up`, leaves the update applied
  // (or rolled back and applied again) and no snapshot of ours (the judge's inventory counts them).
  "protected-update": {
    base: vm({ ...BASE, more: PROTECTED }),
    target: vm({ ...BASE, cores: 2, more: { ...PROTECTED, diskSize: 6 } }),
    setup: true,
    command: ["up"],
    expected: ONE_VM,
  },
  "disk-update": {
    base: vm({ ...BASE, disks: DISKS.before }),
    target: vm({ ...BASE, disks: DISKS.after }),
    setup: true,
    command: ["up"],
    expected: ONE_VM,
  },
  "snapshot-create": {
    base: snapshotProgram(false),
    target: snapshotProgram(true),
    setup: true,
    command: ["up"],
    expected: { ...ONE_VM, snapshots: 1 },
  },
  "snapshot-delete": {
    base: snapshotProgram(true),
    target: snapshotProgram(false),
    setup: true,
    command: ["up"],
    expected: ONE_VM,
  },
};
