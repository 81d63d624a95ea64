/**
 * Reading the fields of a task id (UPID) PVE returns for every asynchronous call: its worker
 * type, start time and worker id.
 */
/** The worker type of a UPID (`UPID:node:pid:pstart:starttime:type:id:user:`), e.g. `qmclone`. */
export function typeOfUpid(upid: string): string | undefined {
  return upid.split(":")[5];
}

/** When the task started, in UNIX seconds (the UPID's hex `starttime` field). */
export function starttimeOfUpid(upid: string): number | undefined {
  const field = upid.split(":")[4];
  return field !== undefined && /^[0-9A-Fa-f]{8}$/.test(field) ? parseInt(field, 16) : undefined;
}

/** The worker id field of a UPID: a VMID, or for a `download` task the target file's name. */
export function idOfUpid(upid: string): string | undefined {
  return upid.split(":")[6];
}

/** The guest id field of a UPID, when it is a plain VMID (not empty, not `vmid@storage`). */
export function vmidOfUpid(upid: string): number | undefined {
  const id = upid.split(":")[6];
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
}
