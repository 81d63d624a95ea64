import type { StorageIo } from "./model/storage-io.js";
import type { TicketAuthority } from "./auth/tickets.js";
import type { TokenStore } from "./auth/tokens.js";
import type { IpPools } from "./guest/ip-pools.js";
import type { Cluster } from "./model/cluster.js";
import type { NodeWorkers } from "./http/api-workers.js";
import type { FlockTable } from "./model/flock.js";
import type { TaskRunner } from "./model/tasks.js";
import type { ResolvedOptions } from "./options.js";

/** A scripted failure for the next requests that match method + path (fault injection). */
export interface RequestFault {
  readonly kind: "fail" | "delay" | "drop" | "reset" | "lose-answer";
  readonly method?: string;
  readonly path: RegExp;
  remaining: number;
  readonly status?: number;
  readonly message?: string;
  readonly delayMs?: number;
}

/** Everything a route handler may touch. */
export interface SimContext {
  readonly cluster: Cluster;
  readonly tasks: TaskRunner;
  readonly tokens: TokenStore;
  readonly tickets: TicketAuthority;
  readonly flocks: FlockTable;
  /** Storage bandwidth shared by running copies, and each storage's allocation lock. */
  readonly storageIo: StorageIo;
  readonly pools: IpPools;
  readonly requestFaults: RequestFault[];
  /** Each node's API workers: a routed request runs its handler on one of them. */
  readonly workers: NodeWorkers;
  readonly options: ResolvedOptions;
  /** SHA-256 fingerprint of the server certificate, as /nodes reports it. */
  readonly sslFingerprint: string;
  /** Marks the state dirty (the state file is written soon after). */
  changed(): void;
  /** Schedules the simulated guest's boot after a start task. */
  bootGuest(vmid: number): void;
}
