import { describe, expect, it } from "vitest";
import { classify } from "../../../provider/pve/classify.js";
import { PermanentError, TransientError } from "../../../provider/pve/errors.js";

/**
 * One row per pattern: the exact text PVE sends, the file in PVE's source that emits it, and the
 * code and kind it must map to.
 */
interface Row {
  readonly text: string;
  readonly source: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body?: unknown;
  readonly code: string;
  readonly transient: boolean;
}

const rows: readonly Row[] = [
  {
    text: "mapping 'gpu0' not found",
    source: "pve-manager PVE/API2/Cluster/Mapping/PCI.pm get",
    method: "GET",
    path: "/cluster/mapping/pci/gpu0",
    status: 500,
    code: "NOT_FOUND",
    transient: false,
  },
  {
    text: "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist",
    source: "pve-guest-common src/PVE/AbstractConfig.pm load_config",
    method: "GET",
    path: "/nodes/pve1/qemu/999/status/current",
    status: 500,
    code: "NOT_FOUND",
    transient: false,
  },
  {
    text: "unable to find configuration file for VM 999 on node 'pve1'",
    source: "qemu-server src/PVE/QemuConfig.pm assert_config_exists_on_node (clone, reboot)",
    method: "POST",
    path: "/nodes/pve1/qemu/999/clone",
    status: 500,
    code: "NOT_FOUND",
    transient: false,
  },
  {
    text: "disk 'scsi9' does not exist",
    source: "qemu-server src/PVE/API2/Qemu.pm resize_vm (PVE 7, synchronous)",
    method: "PUT",
    path: "/nodes/pve1/qemu/100/resize",
    status: 500,
    code: "NOT_FOUND",
    transient: false,
  },
  {
    text: "VM is locked (clone)",
    source: "pve-guest-common src/PVE/AbstractConfig.pm check_lock",
    method: "POST",
    path: "/nodes/pve1/qemu/100/config",
    status: 500,
    code: "LOCKED",
    transient: true,
  },
  {
    text: "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout",
    source: "pve-common src/PVE/Tools.pm lock_file_full",
    method: "POST",
    path: "/nodes/pve1/qemu/100/config",
    status: 500,
    code: "LOCK_TIMEOUT",
    transient: true,
  },
  {
    text: "unable to create VM 101: config file already exists",
    source: "qemu-server src/PVE/API2/Qemu.pm clone_vm",
    method: "POST",
    path: "/nodes/pve1/qemu/100/clone",
    status: 500,
    code: "ALREADY_EXISTS",
    transient: false,
  },
  {
    text: "you can't move a disk with snapshots and delete the source",
    source: "qemu-server src/PVE/API2/Qemu.pm move_vm_disk",
    method: "POST",
    path: "/nodes/pve1/qemu/100/move_disk",
    status: 500,
    code: "BAD_STATE",
    transient: false,
  },
  {
    text: "can't resize volume: scsi0 if snapshot exists",
    source: "qemu-server PVE/API2/Qemu.pm resize_vm (before 8.0.2)",
    method: "PUT",
    path: "/nodes/pve1/qemu/100/resize",
    status: 500,
    code: "BAD_STATE",
    transient: false,
  },
  {
    text: "unable to use snapshot name 'current' (reserved name)",
    source: "qemu-server src/PVE/API2/Qemu.pm snapshot",
    method: "POST",
    path: "/nodes/pve1/qemu/100/snapshot",
    status: 500,
    code: "INVALID_PARAM",
    transient: false,
  },
  {
    text: "VM 100 already running",
    source: "qemu-server src/PVE/QemuServer.pm vm_start",
    method: "POST",
    path: "/nodes/pve1/qemu/100/status/start",
    status: 500,
    code: "ALREADY_RUNNING",
    transient: false,
  },
  {
    text: "unable to create VM 101 - VM 101 already exists on node 'pve2'",
    source: "pve-cluster src/PVE/Cluster.pm check_vmid_unused (create_vm)",
    method: "POST",
    path: "/nodes/pve1/qemu",
    status: 500,
    code: "ALREADY_EXISTS",
    transient: false,
  },
  {
    text: "unable to get any free VMID in range [100, 1000000]",
    source: "pve-manager PVE/API2/Cluster.pm nextid",
    method: "GET",
    path: "/cluster/nextid",
    status: 500,
    code: "RANGE_EXHAUSTED",
    transient: false,
  },
  {
    text: "checksum mismatch (file change by other user?)",
    source: "qemu-server src/PVE/API2/Qemu.pm update_vm (digest)",
    method: "POST",
    path: "/nodes/pve1/qemu/100/config",
    status: 500,
    code: "CONFLICT",
    transient: false,
  },
  {
    text: "cluster not ready - no quorum?",
    source: "pve-cluster src/PVE/Cluster.pm check_cfs_quorum",
    method: "POST",
    path: "/nodes/pve1/qemu/100/status/start",
    status: 500,
    code: "UNAVAILABLE",
    transient: true,
  },
  {
    text: "QEMU guest agent is not running",
    source: "qemu-server src/PVE/API2/Qemu/Agent.pm (guest-ping failed)",
    method: "GET",
    path: "/nodes/pve1/qemu/100/agent/network-get-interfaces",
    status: 500,
    code: "UNAVAILABLE",
    transient: true,
  },
  {
    text: "VM 100 is running - destroy failed",
    source: "qemu-server src/PVE/API2/Qemu.pm destroy_vm",
    method: "DELETE",
    path: "/nodes/pve1/qemu/100",
    status: 500,
    code: "SERVER",
    transient: false,
  },
  {
    text: "No ticket",
    source: "pve-manager PVE/HTTPServer.pm auth_handler (401, empty body)",
    method: "GET",
    path: "/version",
    status: 401,
    code: "AUTH",
    transient: false,
  },
  {
    text: "Authentication failed!",
    source: "pve-manager PVE/HTTPServer.pm auth_handler (since commit 26c10a2e)",
    method: "GET",
    path: "/cluster/resources",
    status: 401,
    code: "AUTH",
    transient: false,
  },
  {
    text: "Permission check failed (/vms/100, VM.Clone)",
    source: "pve-access-control src/PVE/RPCEnvironment.pm check",
    method: "POST",
    path: "/nodes/pve1/qemu/100/clone",
    status: 403,
    code: "FORBIDDEN",
    transient: false,
  },
  {
    text: "Parameter verification failed.",
    source: "pve-common src/PVE/JSONSchema.pm / Exception.pm raise_param_exc",
    method: "POST",
    path: "/nodes/pve1/qemu/100/config",
    status: 400,
    body: { data: null, errors: { cores: "value must have a minimum value of 1" } },
    code: "INVALID_PARAM",
    transient: false,
  },
  {
    text: "Parameter verification failed.",
    source: "pve-manager PVE/API2/Cluster.pm nextid (raise_param_exc vmid)",
    method: "GET",
    path: "/cluster/nextid",
    status: 400,
    body: { data: null, errors: { vmid: "VM 200 already exists" } },
    code: "ALREADY_EXISTS",
    transient: false,
  },
  {
    text: "Parameter verification failed.",
    source: "pve-manager PVE/API2/Tasks.pm read_task_status",
    method: "GET",
    path: "/nodes/pve1/tasks/UPID:pve1:0000AAAA:0000BBBB:67CC7B42:qmstart:100:root@pam!ci:/status",
    status: 400,
    body: { data: null, errors: { upid: "no such task" } },
    code: "NOT_FOUND",
    transient: false,
  },
  {
    text: "No route to host",
    source: "pve-http-server src/PVE/APIServer/AnyEvent.pm proxy_request (AnyEvent::HTTP 595)",
    method: "GET",
    path: "/nodes/pve2/qemu/100/status/current",
    status: 595,
    code: "UNAVAILABLE",
    transient: true,
  },
  {
    text: "Connection timed out",
    source: "pve-http-server src/PVE/APIServer/AnyEvent.pm proxy_request (AnyEvent::HTTP 596)",
    method: "GET",
    path: "/nodes/pve2/qemu/100/status/current",
    status: 596,
    code: "UNAVAILABLE",
    transient: true,
  },
  {
    text: "Method 'GET /nodes/pve1/foo' not implemented",
    source: "pve-manager PVE/HTTPServer.pm rest_handler",
    method: "GET",
    path: "/nodes/pve1/foo",
    status: 501,
    code: "SERVER",
    transient: false,
  },
  {
    text: "Service Unavailable",
    source: "(any proxy in front of pveproxy)",
    method: "GET",
    path: "/version",
    status: 503,
    code: "UNAVAILABLE",
    transient: true,
  },
  {
    text: "storage 'local' is not configured for content-type 'import'",
    source: "pve-storage src/PVE/API2/Storage/Status.pm download_url",
    method: "POST",
    path: "/nodes/pve1/storage/local/download-url",
    status: 500,
    code: "UNSUPPORTED",
    transient: false,
  },
  {
    text: "can't upload to storage type 'lvmthin', not a file based storage!",
    source: "pve-storage src/PVE/API2/Storage/Status.pm download_url",
    method: "POST",
    path: "/nodes/pve1/storage/local-lvm/download-url",
    status: 500,
    code: "UNSUPPORTED",
    transient: false,
  },
  {
    text: "Parameter verification failed.",
    body: { errors: { filename: "invalid filename or wrong extension" } },
    source: "pve-storage src/PVE/API2/Storage/Status.pm download_url (file name check)",
    method: "POST",
    path: "/nodes/pve1/storage/local/download-url",
    status: 400,
    code: "UNSUPPORTED",
    transient: false,
  },
  {
    text: "local:iso/debian.iso has wrong type 'iso' - needs to be 'images' or 'import'",
    source: "qemu-server src/PVE/API2/Qemu.pm $check_drive_param (create_vm import-from)",
    method: "POST",
    path: "/nodes/pve1/qemu",
    status: 500,
    code: "UNSUPPORTED",
    transient: false,
  },
];
describe("classify", () => {
  it.each(rows)("maps $status '$text' ($source) to $code", (row) => {
    const error = classify(row.method, row.path, row.status, row.text, row.body);
    expect(error.code).toBe(row.code);
    expect(error.transient).toBe(row.transient);
    expect(error).toBeInstanceOf(row.transient ? TransientError : PermanentError);
    expect(error.context.status).toBe(row.status);
    expect(error.context.method).toBe(row.method);
    expect(error.context.path).toBe(row.path);
  });
});
