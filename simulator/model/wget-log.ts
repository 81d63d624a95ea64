import { scaleBytes } from "./byte-units.js";

/**
 * The lines `wget --progress=dot:giga` prints into a download task's log: each dot is 1 MiB,
 * eight dots a cluster, 32 dots a line, and each line ends with the percentage done (when the
 * length is known) and the rate.
 */
const DOT = 1024 * 1024;
const LINE = 32 * DOT;

/** `1234567` → `1.2M`, as wget abbreviates sizes and rates. */
export function wgetSize(bytes: number): string {
  const { value, power } = scaleBytes(bytes);
  if (power === 0) return String(bytes);
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)}${"BKMGT"[power] ?? ""}`;
}

function dots(bytesInLine: number): string {
  const count = Math.floor(bytesInLine / DOT);
  const clusters: string[] = [];
  for (let i = 0; i < 4; i += 1) {
    const n = Math.max(0, Math.min(8, count - i * 8));
    clusters.push(".".repeat(n).padEnd(8));
  }
  return clusters.join(" ");
}

/** Tracks received bytes and returns the progress lines completed so far. */
export class WgetProgress {
  private lineStart = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly total: number | undefined) {}

  private line(end: number, last: boolean): string {
    const offset = `${String(this.lineStart / 1024).padStart(6)}K`;
    const pct =
      this.total === undefined || this.total === 0
        ? ""
        : ` ${String(Math.floor((end / this.total) * 100)).padStart(3)}%`;
    const seconds = Math.max((Date.now() - this.startedAt) / 1000, 0.001);
    const rate = `${wgetSize(Math.round((end - this.lineStart) / seconds))}`;
    const tail = last ? `=${seconds.toFixed(1)}s` : "";
    return `${offset} ${dots(end - this.lineStart)}${pct} ${rate}${tail}`;
  }

  /** Lines for every full 32 MiB line reached by `received`. */
  advance(received: number): string[] {
    const out: string[] = [];
    while (received - this.lineStart >= LINE) {
      out.push(this.line(this.lineStart + LINE, false));
      this.lineStart += LINE;
    }
    return out;
  }

  /** The closing partial line (always printed, even for an empty file). */
  finish(received: number): string {
    return this.line(received, true);
  }
}

/** `2026-12-03 07:30:00`, wget's timestamp. */
export function wgetTime(at = new Date()): string {
  return at.toISOString().slice(0, 19).replace("T", " ");
}
