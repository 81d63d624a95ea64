import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A credential that refuses to be printed. `toString`, `toJSON`, template literals and
 * `util.inspect` all yield `[redacted]`; only {@link Secret.reveal} returns the value, and only the
 * HTTP layer calls it (to build the `Authorization` header). The value sits in an ES private
 * field, which neither `util.inspect`, `JSON.stringify` nor `Object.keys` can see.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The raw value. Callers outside `provider/pve/api/http-api.ts` are a bug. */
  reveal(): string {
    return this.#value;
  }

  /** Replaces every occurrence of the value in `text`: a last line of defence for messages. */
  scrub(text: string): string {
    return this.#value.length === 0 ? text : text.split(this.#value).join(REDACTED);
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
}
