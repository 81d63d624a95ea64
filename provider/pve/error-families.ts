/**
 * The families of PVE's die texts that `classify` recognises (docs/design.md, "One error model"):
 * each a pattern, the stable code it stands for, and whether waiting can change the outcome. Each
 * pattern names the PVE source that dies with it, and has a test row in
 * test/provider/pve/classify.test.ts.
 */
import type { ErrorCode } from "./errors.js";

export interface Family {
  readonly code: ErrorCode;
  readonly transient: boolean;
  readonly pattern: RegExp;
}

/** The "missing VM" family: qemu-server says either, and both mean the guest is not on that node. */
export const VM_MISSING =
  /^Configuration file '[^']*' does not exist|unable to find configuration file for VM/;

/** Families recognised in a PVE die text, first match wins. Shared by HTTP 5xx and task exits. */
const FAMILIES: readonly Family[] = [
  // AbstractConfig.pm check_lock: "VM is locked (clone)".
  { code: "LOCKED", transient: true, pattern: /\b(?:VM|CT) is locked \(([^)]+)\)/ },
  // Tools.pm lock_file_full: "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout".
  { code: "LOCK_TIMEOUT", transient: true, pattern: /can't lock file '[^']*' - got timeout/ },
  // Qemu.pm clone_vm / create_vm, Cluster.pm check_vmid_unused, API2/Cluster.pm nextid.
  {
    code: "ALREADY_EXISTS",
    transient: false,
    pattern: /config file already exists|\bVM \d+ already exists/,
  },
  // QemuServer.pm vm_start: "VM 100 already running" (a start task that lost a race).
  { code: "ALREADY_RUNNING", transient: false, pattern: /\bVM \d+ already running/ },
  // pve-manager API2/Cluster/Mapping/{PCI,USB,Dir}.pm get: "mapping 'gpu0' not found".
  { code: "NOT_FOUND", transient: false, pattern: /^mapping '[^']*' not found/ },
  // AbstractConfig.pm load_config / QemuConfig.pm assert_config_exists_on_node.
  { code: "NOT_FOUND", transient: false, pattern: VM_MISSING },
  // API2/Cluster.pm nextid: "unable to get any free VMID in range [100, 1000000]".
  { code: "RANGE_EXHAUSTED", transient: false, pattern: /unable to get any free VMID/ },
  // Qemu.pm update_vm: "checksum mismatch (file change by other user?)" (digest).
  {
    code: "CONFLICT",
    transient: false,
    pattern: /^checksum mismatch \(file change by other user\?\)/,
  },
  // pve-storage API2/Storage/Status.pm download_url (via Tools.pm download_file_from_url):
  // "checksum mismatch: got '<hex>' != expect '<hex>'", with ", aborting" for an existing file.
  { code: "CHECKSUM_MISMATCH", transient: false, pattern: /^checksum mismatch: got '/ },
  // pve-storage Status.pm download_url / upload: the storage lacks the content type.
  {
    code: "UNSUPPORTED",
    transient: false,
    pattern: /is not configured for content-type '|not a file based storage!/,
  },
  // Status.pm download_url: only `iso` content is decompressed.
  { code: "UNSUPPORTED", transient: false, pattern: /^decompression not supported for / },
  // pve-storage Storage.pm verify/normalize of an import file name (400 errors.filename).
  { code: "UNSUPPORTED", transient: false, pattern: /invalid filename or wrong extension/ },
  // qemu-server API2/Qemu.pm $check_drive_param: an import-from source that is not an image.
  {
    code: "UNSUPPORTED",
    transient: false,
    pattern: /has wrong type '[^']*' - needs to be 'images' or 'import'/,
  },
  // pve-guest-common AbstractConfig.pm __snapshot_prepare (a snapshot task's exit).
  { code: "ALREADY_EXISTS", transient: false, pattern: /^snapshot name '[^']*' already used/ },
  // AbstractConfig.pm __snapshot_prepare: a disk's storage or format cannot be snapshotted.
  { code: "UNSUPPORTED", transient: false, pattern: /^snapshot feature is not available/ },
  // qemu-server API2/Qemu.pm snapshot: `current` and `pending` name other things.
  {
    code: "INVALID_PARAM",
    transient: false,
    pattern: /^unable to use snapshot name '[^']*' \(reserved name\)/,
  },
  // What a snapshot forbids: Qemu.pm move_vm_disk (delete=1), resize_vm before 8.0.2 (qcow2),
  // ZFSPoolPlugin.pm volume_rollback_is_possible (only the newest snapshot).
  {
    code: "BAD_STATE",
    transient: false,
    pattern:
      /^you can't move a disk with snapshots and delete the source|^can't resize volume: \S+ if snapshot exists|^can't rollback, more recent snapshots exist/,
  },
  // Cluster.pm check_cfs_quorum: "cluster not ready - no quorum?".
  { code: "UNAVAILABLE", transient: true, pattern: /cluster not ready - no quorum\?/ },
  // API2/Qemu/Agent.pm: "QEMU guest agent is not running" (guest-ping failed).
  { code: "UNAVAILABLE", transient: true, pattern: /QEMU guest agent is not running/ },
  // Generic "<thing> does not exist", the end of PVE's not-found dies (pve-storage
  // storage_config: "storage 'x' does not exist").
  { code: "NOT_FOUND", transient: false, pattern: / does not exist$/m },
  // Any other "... got timeout" (QemuServer.pm vm_stop: "VM quit/powerdown failed - got timeout").
  { code: "TIMEOUT", transient: true, pattern: /got timeout$/m },
];

/** The family a PVE die text belongs to: the first pattern that matches. */
export function familyOf(text: string): Family | undefined {
  return FAMILIES.find((family) => family.pattern.test(text));
}
