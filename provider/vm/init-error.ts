/**
 * The one error that carries `id`: a VM exists but a later step of its create (or update)
 * failed. The dynamic-provider host turns it into the engine's partial-failure response, so
 * Pulumi records the VM (instead of leaking it) and the next `up` finishes it with an update.
 *
 * `properties` must include the inputs (and `__provider`, which the host does not add): the
 * next refresh, update or delete needs them.
 */
export class VmInitError extends Error {
  override readonly name = "VmInitError";
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];

  constructor(vmid: number, properties: Record<string, unknown>, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(reason, { cause });
    this.id = String(vmid);
    // The engine's Struct encoding rejects `undefined`; JSON drops it.
    this.properties = JSON.parse(JSON.stringify(properties)) as Record<string, unknown>;
    this.reasons = [reason];
  }
}
