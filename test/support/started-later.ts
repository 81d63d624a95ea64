/**
 * Stands for an object a hook creates, so that the describe block can hand it to its tests as
 * a plain variable; each use reads the current one, and a use before the hook ran says so.
 */
export function startedLater<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = current();
      if (value === undefined) throw new Error(`${what} is used before its hook started it`);
      const member: unknown = Reflect.get(value, key, value);
      return typeof member === "function" ? (member as () => unknown).bind(value) : member;
    },
  });
}
