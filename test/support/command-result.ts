import { expect } from "vitest";

/** What a finished command left: its exit code and both output streams. */
export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Asserts the exit code; when it differs, the failure shows the command's own output. */
export function expectExitCode(result: CommandResult, code: number): void {
  expect(result.code, result.stdout + result.stderr).toBe(code);
}

/** Asserts the command succeeded (exit 0), else shows what it printed. */
export function expectSuccess(result: CommandResult): void {
  expectExitCode(result, 0);
}

/** Asserts the command failed (any non-zero exit), else shows what it printed. */
export function expectFailure(result: CommandResult): void {
  expect(result.code, result.stdout + result.stderr).not.toBe(0);
}
