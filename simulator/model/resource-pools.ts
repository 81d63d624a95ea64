/** A resource pool of `/etc/pve/user.cfg`: VMs and storages grouped for permissions. */
export interface ResourcePool {
  readonly poolid: string;
  comment?: string;
  readonly vms: Set<number>;
  readonly storage: Set<string>;
}

/**
 * Resource pools and which pool each VM belongs to. A VM belongs to at most one pool; destroying
 * a VM takes it out of its pool (pve-access-control `remove_vm_access`).
 */
export class ResourcePools {
  private readonly pools = new Map<string, ResourcePool>();

  get(poolid: string): ResourcePool | undefined {
    return this.pools.get(poolid);
  }

  list(): ResourcePool[] {
    return [...this.pools.values()].sort((a, b) => a.poolid.localeCompare(b.poolid));
  }

  create(poolid: string, comment: string | undefined): ResourcePool {
    const pool: ResourcePool = { poolid, vms: new Set(), storage: new Set() };
    if (comment !== undefined) pool.comment = comment;
    this.pools.set(poolid, pool);
    return pool;
  }

  delete(poolid: string): void {
    this.pools.delete(poolid);
  }

  /** The pool a VM is in, if any. */
  poolOf(vmid: number): string | undefined {
    for (const pool of this.pools.values()) if (pool.vms.has(vmid)) return pool.poolid;
    return undefined;
  }

  forgetVm(vmid: number): void {
    for (const pool of this.pools.values()) pool.vms.delete(vmid);
  }
}
