/**
 * The clones this provider process has started, by VMID, with the identity of the resource
 * each is for (docs/design.md, "Recognising our own clone before it ends").
 *
 * PVE writes a clone's name and description only when the clone ends, so from the outside a
 * clone in progress says nothing about whose it is. Inside one process it does not need to:
 * every create of a deployment runs in the same provider process, and a clone PVE accepted
 * (its POST answered with a task) is known here by VMID and identity. So VMID choice needs no
 * lock held across a listing and the POST (a VMID is claimed here first, and PVE refuses a
 * second clone to a VMID on its own), and a create never waits on the clone of another
 * resource of the same deployment. Nothing here survives the process: after a crash the next
 * process knows no clone, so it inspects every nameless one in its window as before.
 */
export class CloneRegistry {
  /** VMID → identity, for clones this process claimed a VMID for. */
  readonly #claimed = new Map<number, string>();
  /** VMID → target node, for clones PVE accepted (or whose lost answer turned out ours). */
  readonly #started = new Map<number, string>();

  /** Claims `vmid` for `identity`; false when another create of this process holds it. */
  claim(vmid: number, identity: string): boolean {
    const holder = this.#claimed.get(vmid);
    if (holder !== undefined) return holder === identity;
    this.#claimed.set(vmid, identity);
    return true;
  }

  /** PVE accepted the clone to `vmid` on `node`: the VM there is being made for the claimant. */
  started(vmid: number, node: string): void {
    if (this.#claimed.has(vmid)) this.#started.set(vmid, node);
  }

  /** Gives `vmid` up: PVE refused the clone there, or its task lost the VMID to someone else. */
  release(vmid: number): void {
    this.#claimed.delete(vmid);
    this.#started.delete(vmid);
  }

  /** The identity a clone this process started at `vmid` is for; undefined when it started none. */
  startedFor(vmid: number): string | undefined {
    return this.#started.has(vmid) ? this.#claimed.get(vmid) : undefined;
  }

  /** The clones this process started for `identity`. */
  startedClones(identity: string): { readonly node: string; readonly vmid: number }[] {
    return [...this.#started]
      .filter(([vmid]) => this.#claimed.get(vmid) === identity)
      .map(([vmid, node]) => ({ node, vmid }));
  }
}
