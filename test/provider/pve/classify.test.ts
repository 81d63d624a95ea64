import { describe, expect, it } from "vitest";
import { classify, classifyTaskFailure } from "../../../provider/pve/classify.js";
import { isTransient, PermanentError, TransientError } from "../../../provider/pve/errors.js";
import { Secret } from "../../../provider/pve/secret.js";

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

  it("prefers the body's message (pve-http-server ≥ 5.2) over the reason phrase", () => {
    const error = classify("GET", "/nodes/pve-root/qemu/999/status/current", 500, "x", {
      message: "Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist\n",
      data: null,
    });
    expect(error.code).toBe("NOT_FOUND");
    expect(error.context.pveMessage).toBe(
      "Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist",
    );
    expect(error.message).toBe(
      "GET /nodes/pve-root/qemu/999/status/current: VM 999 on pve-root does not exist " +
        "(Configuration file 'nodes/pve-root/qemu-server/999.conf' does not exist). It was " +
        "deleted or moved outside Pulumi; `pulumi refresh` updates the state.",
    );
  });

  it("puts node and VMID from the path into the context", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      500,
      "VM is locked (backup)",
      undefined,
    );
    expect(error.context).toMatchObject({ node: "pve1", vmid: 100, lock: "backup" });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/config: VM 100 on pve1 is locked (backup) by another " +
        "operation. It is retried until the budget runs out; if no task holds the lock, clear " +
        "it on the node with `qm unlock 100`.",
    );
  });

  it("puts the UPID from a task path into the context", () => {
    const upid = "UPID:pve1:0000AAAA:0000BBBB:67CC7B42:qmstart:100:root@pam!ci:";
    const error = classify(
      "GET",
      `/nodes/pve1/tasks/${upid}/status`,
      596,
      "Connection timed out",
      undefined,
    );
    expect(error.context).toMatchObject({ node: "pve1", upid, unavailable: "proxy-timeout" });
  });

  it("parses the privilege and ACL path of a 403", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
    );
    expect(error.context).toMatchObject({ aclPath: "/vms/100", privilege: "VM.Clone" });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was denied: the API token lacks " +
        "VM.Clone on /vms/100. Grant a role with it on /vms/100 (pveum acl modify /vms/100 " +
        "--tokens <token-id> --roles <role>); a token with privilege separation needs the ACL " +
        "on the token itself.",
    );
  });

  it("names the token that lacks the privilege, and the pveum line for it", () => {
    const login = { kind: "token", tokenId: "ci@pve!deploy", secret: new Secret("s-1") } as const;
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
      login,
    );
    expect(error.message).toContain("the API token ci@pve!deploy lacks VM.Clone on /vms/100");
    expect(error.message).toContain(
      "pveum acl modify /vms/100 --tokens ci@pve!deploy --roles <role>",
    );
    expect(error.message).not.toContain("s-1");
  });

  it("names the user of a password login that lacks the privilege, and grants it to the user", () => {
    const login = { kind: "password", username: "ops@pve", password: new Secret("pw-1") } as const;
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (/vms/100, VM.Clone)",
      undefined,
      login,
    );
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was denied: the user ops@pve lacks VM.Clone " +
        "on /vms/100. Grant a role with it on /vms/100 (pveum acl modify /vms/100 --users ops@pve --roles <role>).",
    );
  });

  it("reads a clone into a missing pool, which PVE refuses as a 403, as a pool to create", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/9000/clone",
      403,
      "Permission check failed (pool 'web' does not exist)",
      undefined,
    );
    expect([error.code, error.transient]).toEqual(["NOT_FOUND", false]);
    expect(error.message).toContain(
      "failed: resource pool 'web' does not exist. Create it (pveum pool add web) or set pool " +
        "to an existing pool.",
    );
  });

  it("reads a key only root@pam may set as a login to change, not an ACL to grant", () => {
    const error = classify(
      "PUT",
      "/nodes/pve1/qemu/100/config",
      500,
      "only root can set 'affinity' config",
      undefined,
    );
    expect([error.code, error.transient]).toEqual(["FORBIDDEN", false]);
    expect(error.message).toBe(
      "PUT /nodes/pve1/qemu/100/config (VM 100 on pve1) was refused: PVE lets only root@pam set " +
        "'affinity', whatever the ACLs. Log in as root@pam with a password (stack config " +
        "proxmox:username and proxmox:password) or leave out the input that writes 'affinity'.",
    );
  });

  it("lists every privilege of an any-of 403", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      403,
      "Permission check failed (/vms/100, VM.Config.Network|VM.Config.Options)",
      undefined,
    );
    expect(error.context.privilege).toBe("VM.Config.Network|VM.Config.Options");
    expect(error.message).toContain(
      "lacks one of VM.Config.Network, VM.Config.Options on /vms/100",
    );
  });

  it("parses the tag-permission 403 down to the privilege", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/config",
      403,
      "Permission check failed (/, Sys.Modify for modifying tag 'prod')",
      undefined,
    );
    expect(error.context).toMatchObject({ aclPath: "/", privilege: "Sys.Modify" });
  });

  it("keeps a 403 without an ACL path as PVE's text", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      403,
      "Permission check failed (user != root@pam)",
      undefined,
    );
    expect(error.code).toBe("FORBIDDEN");
    expect(error.context.aclPath).toBeUndefined();
    expect(error.message).toContain("(403 Permission check failed (user != root@pam))");
  });

  it("carries the errors map of a 400 and names each parameter", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      400,
      "Parameter verification failed.",
      {
        data: null,
        errors: { name: "invalid format - value does not look like a valid DNS name\n" },
      },
    );
    expect(error.context.paramErrors).toEqual({
      name: "invalid format - value does not look like a valid DNS name",
    });
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/clone (VM 100 on pve1) was rejected: name: invalid " +
        "format - value does not look like a valid DNS name. Fix the named inputs; retrying " +
        "the same request cannot succeed.",
    );
  });

  it("splits 595 as node down and 596 timeouts as a proxy timeout", () => {
    const down = classify(
      "GET",
      "/nodes/pve2/qemu/100/status/current",
      595,
      "No route to host",
      undefined,
    );
    const slow = classify(
      "GET",
      "/nodes/pve2/qemu/100/status/current",
      596,
      "Connection timed out",
      undefined,
    );
    expect(down.context.unavailable).toBe("node-down");
    expect(down.message).toContain("could not reach node pve2 (595 No route to host)");
    expect(slow.context.unavailable).toBe("proxy-timeout");
    expect(slow.message).toContain("timed out inside the cluster (596 Connection timed out)");
  });

  it("reads the VMID of a lock timeout from the lock file name", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/clone",
      500,
      "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout",
      undefined,
    );
    expect(error.context.vmid).toBe(100);
    const bare = classify(
      "GET",
      "/cluster/nextid",
      500,
      "can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout",
      undefined,
    );
    expect(bare.context.vmid).toBe(101);
  });

  it("names the token id (never the secret) in a 401", () => {
    const login = {
      kind: "token",
      tokenId: "pulumi@pve!ci",
      secret: new Secret("s3cr3t"),
    } as const;
    const error = classify("GET", "/version", 401, "No ticket", undefined, login);
    expect(error.message).toBe(
      "GET /version was not authenticated (401 No ticket). Check the API token pulumi@pve!ci: " +
        "its id and secret, that it exists and has not expired, and that its user is enabled.",
    );
  });

  it("names the user and the settings when PVE refuses a password login", () => {
    const login = { kind: "password", username: "ops@pve", password: new Secret("pw-1") } as const;
    // pve-access-control PVE/API2/AccessControl.pm create_ticket: one text for every cause.
    const refused = classify(
      "POST",
      "/access/ticket",
      401,
      "authentication failure",
      undefined,
      login,
    );
    expect(refused).toMatchObject({ code: "AUTH", transient: false });
    expect(refused.message).toBe(
      "POST /access/ticket was not authenticated (401 authentication failure). PVE refused the " +
        "login of ops@pve. Check `proxmox:username` and `proxmox:password` (or " +
        "PROXMOX_VE_USERNAME and PROXMOX_VE_PASSWORD): the user exists in that realm and is " +
        "enabled, and the password is current.",
    );
    const ticket = classify("GET", "/version", 401, "No ticket", undefined, login);
    expect(ticket.message).toBe(
      "GET /version was not authenticated (401 No ticket). PVE refused a new login ticket of " +
        "ops@pve: check that the user is enabled and has not expired.",
    );
  });

  it("says a 501 'Method … not implemented' means PVE lacks the call", () => {
    const error = classify(
      "GET",
      "/nodes/pve1/foo",
      501,
      "Method 'GET /nodes/pve1/foo' not implemented",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).toContain("PVE does not implement this call");
  });

  it("reads any other 501 as an error that escaped a handler before pve-http-server 5.2.0", () => {
    const error = classify(
      "PUT",
      "/nodes/pve1/qemu/100/config",
      501,
      "unable to parse value of 'net0' - format error",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).toBe(
      "PUT /nodes/pve1/qemu/100/config (VM 100 on pve1) failed on the server (501 unable to " +
        "parse value of 'net0' - format error)." +
        NEXT_UP,
    );
  });

  it("still recognises a known family in an old 501, such as a lock", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/status/start",
      501,
      "VM is locked (backup)",
      undefined,
    );
    expect(error).toMatchObject({ code: "LOCKED", transient: true });
  });

  it("makes an unmatched 500 a permanent SERVER error that says what the next up does", () => {
    const error = classify(
      "POST",
      "/nodes/pve1/qemu/100/status/reboot",
      500,
      "VM 100 not running",
      undefined,
    );
    expect(isTransient(error)).toBe(false);
    expect(error.message).toBe(
      "POST /nodes/pve1/qemu/100/status/reboot (VM 100 on pve1) failed on the server " +
        "(500 VM 100 not running)." +
        NEXT_UP,
    );
  });

  it("tells of a 500 on the seed upload that the next up uploads it again", () => {
    const error = classify(
      "POST",
      "/nodes/pve2/storage/local/upload",
      500,
      "error writing file: No space left on device",
      undefined,
    );
    expect(error).toMatchObject({ code: "SERVER", transient: false });
    expect(error.message).not.toMatch(/will not help|cannot succeed/);
    expect(error.message).toContain("The next `pulumi up` sends it again");
  });
});

/** What a permanent SERVER error says about the next run. */
const NEXT_UP =
  " This run does not send it again: PVE gave up on the request, and the same request usually fails " +
  "the same way. The next `pulumi up` sends it again and carries on from there (what this run " +
  "finished is kept): fix what PVE names first; if the cause has passed, that `up` completes.";

describe("classifyTaskFailure", () => {
  const upid = "UPID:pve1:0021B19E:02328820:67CC7B42:qmdestroy:100:root@pam!ci:";

  it("makes a TASK_FAILED error with the log tail and the family of the exit text", () => {
    const error = classifyTaskFailure("pve1", upid, "VM is locked (clone)", [
      "trying to acquire lock...",
      "TASK ERROR: VM is locked (clone)",
    ]);
    expect(error.code).toBe("TASK_FAILED");
    expect(error.transient).toBe(false);
    expect(error.context).toMatchObject({
      node: "pve1",
      vmid: 100,
      upid,
      taskErrorCode: "LOCKED",
      taskLogTail: ["trying to acquire lock...", "TASK ERROR: VM is locked (clone)"],
    });
    expect(error.message).toBe(
      `PVE task qmdestroy for VM 100 on pve1 failed: VM is locked (clone) (${upid}). See ` +
        "the task log in the PVE UI (node pve1, Tasks).\nLast lines of the task log:\n  " +
        "trying to acquire lock...\n  TASK ERROR: VM is locked (clone)",
    );
  });

  it("marks a start of a missing VM as NOT_FOUND in taskErrorCode", () => {
    const error = classifyTaskFailure(
      "pve1",
      "UPID:pve1:0021B19E:02328820:67CC7B42:qmstart:100:root@pam!ci:",
      "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist",
      [],
    );
    expect(error.context.taskErrorCode).toBe("NOT_FOUND");
  });

  it.each([
    // pve-guest-common AbstractConfig.pm __snapshot_prepare.
    ["snapshot name 'before-upgrade' already used", "qmsnapshot", "ALREADY_EXISTS"],
    ["snapshot feature is not available", "qmsnapshot", "UNSUPPORTED"],
    // AbstractConfig.pm snapshot_delete / snapshot_rollback.
    ["snapshot 'gone' does not exist", "qmdelsnapshot", "NOT_FOUND"],
    ["VM is locked (snapshot)", "qmrollback", "LOCKED"],
    // pve-storage ZFSPoolPlugin.pm volume_rollback_is_possible.
    ["can't rollback, more recent snapshots exist", "qmrollback", "BAD_STATE"],
  ])("marks the snapshot task's exit '%s' (%s) as %s", (text, type, code) => {
    const upidOf = `UPID:pve1:0021B19E:02328820:67CC7B42:${type}:100:root@pam!ci:`;
    const error = classifyTaskFailure("pve1", upidOf, text, []);
    expect([error.code, error.context.taskErrorCode]).toEqual(["TASK_FAILED", code]);
  });

  it.each([
    ["checksum mismatch: got 'ab12' != expect 'cd34'", "CHECKSUM_MISMATCH"],
    ["checksum mismatch: got 'ab12' != expect 'cd34', aborting", "CHECKSUM_MISMATCH"],
    ["decompression not supported for import", "UNSUPPORTED"],
  ])(
    "marks the download task's exit '%s' (pve-storage Status.pm download_url) as %s",
    (text, code) => {
      const error = classifyTaskFailure(
        "pve1",
        "UPID:pve1:0021B19E:02328820:67CC7B42:download:debian.qcow2:root@pam!ci:",
        text,
        [],
      );
      expect(error.code).toBe("TASK_FAILED");
      expect(error.context.taskErrorCode).toBe(code);
    },
  );

  it("reports a start that failed on a missing bridge as the VM's network, not its guest", () => {
    // pve-common PVE/Network.pm $read_bridge_mtu, logged by qemu-server's pve-bridge script.
    const start = "UPID:pve1:0021B19E:02328820:67CC7B42:qmstart:105:root@pam!ci:";
    const error = classifyTaskFailure("pve1", start, "start failed: QEMU exited with code 1", [
      "bridge 'vmbr9' does not exist",
      "kvm: -netdev type=tap,id=net1,ifname=tap105i1,…: network script … failed with status 512",
      "TASK ERROR: start failed: QEMU exited with code 1",
    ]);
    expect(error.context).toMatchObject({ taskErrorCode: "NOT_FOUND", missingBridge: "vmbr9" });
    expect(error.message).toMatch(
      /^PVE task qmstart for VM 105 on pve1 failed: a NIC is on bridge vmbr9, which node pve1 does not have \(start failed: QEMU exited with code 1; UPID:.*\)\. The VM was not started: its network, not its guest, is the problem\./,
    );
    expect(error.message).toContain("the next `up` starts the VM");
  });

  it("leaves taskErrorCode undefined for an unknown text and an empty UPID id", () => {
    const error = classifyTaskFailure(
      "pve1",
      "UPID:pve1:0021B19E:02328820:67CC7B42:imgcopy::root@pam!ci:",
      "error with cfs lock 'file-storage_cfg': got lock request timeout",
      [],
    );
    expect(error.context.taskErrorCode).toBeUndefined();
    expect(error.context.vmid).toBeUndefined();
    expect(error.message).toContain("PVE task imgcopy on node pve1 failed");
  });
});
