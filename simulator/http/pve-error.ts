/**
 * An error the simulator answers the way PVE does: the first line of `message` becomes the HTTP
 * reason phrase, and the JSON body is `{"data":null}` plus `errors` for parameter checks and,
 * like pve-http-server >= 5.2.0, `message` with a trailing newline.
 */
export class PveError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = "PveError";
  }
}

/**
 * An error the HTTP server raises itself, before or around the API handler (an unreadable body, a
 * path outside the API, content on a GET). It has no JSON envelope: the body is empty, or the
 * message as text since pve-http-server 5.2.0. `status` undefined means "a generic failure",
 * which answered 501 before 5.2.0 and 500 since.
 */
export class ServerError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ServerError";
  }
}

/** raise_param_exc: 400 "Parameter verification failed." with one text per parameter. */
export function paramError(errors: Record<string, string>): PveError {
  return new PveError(400, "Parameter verification failed.", errors);
}

/** raise_perm_exc: 403, with the ACL path and privilege(s) in brackets when PVE names them. */
export function permError(what?: string): PveError {
  return new PveError(
    403,
    what === undefined ? "Permission check failed" : `Permission check failed (${what})`,
  );
}

/** A plain `die`: PVE answers 500 with the die text. */
export function dieError(message: string): PveError {
  return new PveError(500, message);
}

/** The wording PVE's AbstractConfig::load_config uses for a config that is not on the node. */
export function configMissing(node: string, vmid: number): PveError {
  return dieError(`Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`);
}

/** The wording of check_running / clone / reboot for the same situation. */
export function configNotFound(node: string, vmid: number): PveError {
  return dieError(`unable to find configuration file for VM ${vmid} on node '${node}'`);
}

/** PVE::Tools::lock_file_full's timeout text for the per-VM flock. */
export function lockTimeout(vmid: number): PveError {
  return dieError(`can't lock file '/var/lock/qemu-server/lock-${vmid}.conf' - got timeout`);
}
