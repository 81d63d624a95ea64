/**
 * Ends the provider process when the Pulumi engine that started it is gone.
 *
 * The engine starts plugins in their own process group, so a killed `pulumi` leaves this
 * process running. Left alone it would not only idle: with stdout/stderr closed, every write
 * fails with EPIPE, Pulumi's dynamic-provider host turns that into an `uncaughtException`, logs
 * it with `console.error`, which fails with EPIPE again — a loop that burns a core and grows
 * without bound. So once the engine is gone, this module makes every write to stdout/stderr a
 * silent no-op, stops logging uncaught errors, aborts the in-flight Proxmox work (its requests
 * honour {@link engineSignal}) and exits after a short grace. Exiting mid-operation is safe:
 * every step is resumable, and the next `up` picks a VM up from the phase its mark records.
 *
 * The engine counts as gone when this process's parent pid changes (on Linux an orphan is
 * re-parented to pid 1 or a subreaper) or when writing to stdout/stderr fails.
 *
 * @internal
 */
import { PermanentError } from "../pve/errors";

/** The timers the watch needs; both handles are unref()ed so they never keep a process alive. */
export interface WatchTimers {
  setInterval(tick: () => void, ms: number): { unref(): unknown };
  clearInterval(handle: { unref(): unknown }): void;
  setTimeout(fire: () => void, ms: number): { unref(): unknown };
}

/** The parts of `process` the watch touches; a fake in unit tests. */
export interface WatchedProcess {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  on(
    event: "uncaughtException" | "unhandledRejection",
    listener: (error: unknown) => void,
  ): unknown;
  prependListener(
    event: "uncaughtException" | "unhandledRejection",
    listener: (error: unknown) => void,
  ): unknown;
  removeAllListeners(event: "uncaughtException" | "unhandledRejection"): unknown;
  exit(code: number): void;
}

export interface EngineWatchOptions {
  /** Reads the current parent pid; `process.ppid` re-reads it on every access. */
  readonly readPpid?: () => number;
  readonly timers?: WatchTimers;
  readonly process?: WatchedProcess;
  /** How often the parent pid is checked. */
  readonly intervalMs?: number;
  /** Time between aborting the in-flight work and exiting, for its rejections to settle. */
  readonly graceMs?: number;
}

export interface EngineWatch {
  /** Aborts (with an ABORTED PermanentError) once the engine is gone. */
  readonly signal: AbortSignal;
  /** Why the engine counts as gone, once it does. */
  readonly goneBecause: string | undefined;
}

const CHECK_EVERY_MS = 1_000;
const EXIT_GRACE_MS = 1_500;
const UNCAUGHT = ["uncaughtException", "unhandledRejection"] as const;

/** Starts watching for the engine to go; every caller of one process should share one watch. */
export function watchEngine(options: EngineWatchOptions = {}): EngineWatch {
  const proc = options.process ?? nodeProcess();
  const timers = options.timers ?? nodeTimers;
  const readPpid = options.readPpid ?? (() => process.ppid);
  const controller = new AbortController();
  const startedUnder = readPpid();
  let goneBecause: string | undefined;

  const gone = (reason: string) => {
    if (goneBecause !== undefined) return;
    goneBecause = reason;
    timers.clearInterval(ticker);
    // Nobody reads these pipes any more: never write, never log a failed write.
    for (const stream of [proc.stdout, proc.stderr]) silence(stream);
    for (const event of UNCAUGHT) {
      proc.removeAllListeners(event);
      proc.on(event, () => undefined);
    }
    controller.abort(
      new PermanentError(
        "ABORTED",
        `The Pulumi engine is gone (${reason}): this provider process stops; the next \`pulumi up\` resumes the work.`,
      ),
    );
    timers.setTimeout(() => proc.exit(1), options.graceMs ?? EXIT_GRACE_MS).unref();
  };

  const ticker = timers.setInterval(() => {
    const now = readPpid();
    if (now !== startedUnder) gone(`parent pid ${startedUnder} became ${now}`);
  }, options.intervalMs ?? CHECK_EVERY_MS);
  ticker.unref();

  // A listener makes a failed write an event rather than an uncaught exception.
  const onWriteError = (name: string) => (error: unknown) =>
    gone(`${name} failed: ${codeOf(error) ?? "error"}`);
  proc.stdout.on("error", onWriteError("stdout"));
  proc.stderr.on("error", onWriteError("stderr"));
  // An EPIPE from elsewhere (a socket to the engine) must not start the logging loop either.
  for (const event of UNCAUGHT) {
    proc.prependListener(event, (error: unknown) => {
      if (codeOf(error) === "EPIPE") gone(`${event}: EPIPE`);
    });
  }

  return {
    signal: controller.signal,
    get goneBecause() {
      return goneBecause;
    },
  };
}

const nodeTimers: WatchTimers = {
  setInterval: (tick, ms) => setInterval(tick, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
  setTimeout: (fire, ms) => setTimeout(fire, ms),
};

type UncaughtEvent = (typeof UNCAUGHT)[number];

function nodeProcess(): WatchedProcess {
  // `process`'s overloads take one event name at a time; the watch passes either.
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    on: (event: UncaughtEvent, listener) => process.on(event as "uncaughtException", listener),
    prependListener: (event, listener) =>
      process.prependListener(event as "uncaughtException", listener),
    removeAllListeners: (event) => process.removeAllListeners(event),
    exit: (code) => process.exit(code),
  };
}

let installed: EngineWatch | undefined;

/** The provider process's one watch, started on first call (from dynamic-provider.ts). */
export function installEngineWatch(): EngineWatch {
  installed ??= watchEngine();
  return installed;
}

/** The installed watch's signal; undefined outside a provider process (tests, the CLI). */
export function engineSignal(): AbortSignal | undefined {
  return installed?.signal;
}

function silence(stream: NodeJS.WritableStream): void {
  stream.write = ((...args: unknown[]) => {
    const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
    callback?.();
    return true;
  }) as NodeJS.WritableStream["write"];
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
