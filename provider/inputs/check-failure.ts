/** One problem `check` reports: the property as the user wrote it, and what is wrong with it. */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}
