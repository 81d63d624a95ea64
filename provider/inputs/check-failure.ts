/** One problem `check` reports: the property as the user wrote it, and what is wrong with it. */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

/**
 * Failures as the engine is handed them. Given a property, the engine prints "property <p> value
 * {<the inputs' top-level key p>} has a problem: …": `{<nil>}` for a nested path such as
 * `networks[1].bridge`, a Go map dump for a top-level object. Given none, it prints "<type>
 * resource '<name>' has a problem: <reason>", so the property leads the reason instead and the
 * user reads the property and the rule only.
 */
export function forEngine(failures: readonly CheckFailure[]): CheckFailure[] {
  return failures.map((failure) => ({
    property: "",
    reason: `${failure.property}: ${failure.reason}`,
  }));
}
