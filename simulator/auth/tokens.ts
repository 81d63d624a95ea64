import { randomUUID, timingSafeEqual } from "node:crypto";
import type { Acl, TokenSeed, UserSeed } from "../model/types.js";

const TOKEN_ID_RE = /^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/;
const USER_ID_RE = /^[^\s:/!]+@[A-Za-z][A-Za-z0-9.\-_]+$/;

export type AuthResult =
  { ok: true; tokenId: string } | { ok: false; reason: string; tokenId?: string };

/**
 * API tokens, password users and their ACLs (a "subject" is a token id or a user id). PVE computes a token's privileges on a path by walking the ACL tree
 * from `/` down: at each level where the token has ACL entries that apply (the level is the path
 * itself, or the entry propagates), those entries replace what was inherited from above.
 */
export class TokenStore {
  private readonly tokens = new Map<string, TokenSeed>();
  private readonly users = new Map<string, UserSeed>();

  /** `knownPrivileges`: the ones the PVE release knows; a role with another is refused, as pveum does. */
  constructor(
    seeds: readonly TokenSeed[],
    users: readonly UserSeed[] = [],
    private readonly knownPrivileges?: readonly string[],
  ) {
    for (const seed of seeds) this.add(seed);
    for (const user of users) this.addUser(user);
  }

  addUser(seed: UserSeed): void {
    if (!USER_ID_RE.test(seed.userid)) throw new Error(`invalid user id '${seed.userid}'`);
    this.users.set(seed.userid, seed);
  }

  /** Whether the user has a second factor. */
  hasTfa(userid: string): boolean {
    return this.users.get(userid)?.tfa === true;
  }

  /** Whether `password` is the user's (compared in constant time). */
  checkPassword(userid: string, password: string): boolean {
    const user = this.users.get(userid);
    return user !== undefined && sameSecret(user.password, password);
  }

  /** Every user id that exists: password users and the owners of tokens. */
  userIds(): string[] {
    const owners = [...this.tokens.keys()].map((id) => id.slice(0, id.indexOf("!")));
    return [...new Set([...this.users.keys(), ...owners])].sort();
  }

  /** The tokens of one user, by id. */
  tokensOf(userid: string): readonly TokenSeed[] {
    return [...this.tokens.values()].filter((t) => t.tokenId.startsWith(`${userid}!`));
  }

  /** The ACLs of a token or user. */
  aclsOf(subject: string): readonly Acl[] {
    return (this.tokens.get(subject) ?? this.users.get(subject))?.acls ?? [];
  }

  add(seed: TokenSeed): string {
    if (!TOKEN_ID_RE.test(seed.tokenId)) throw new Error(`invalid token id '${seed.tokenId}'`);
    const unknown = seed.acls
      .flatMap((acl) => acl.privileges)
      .find((p) => this.knownPrivileges !== undefined && !this.knownPrivileges.includes(p));
    if (unknown !== undefined) throw new Error(`invalid privilege '${unknown}'`);
    this.tokens.set(seed.tokenId, seed);
    return `${seed.tokenId}=${seed.secret}`;
  }

  /** Deletes a token, as `pveum user token remove` does; false when there was none. */
  remove(tokenId: string): boolean {
    return this.tokens.delete(tokenId);
  }

  static newSecret(): string {
    return randomUUID();
  }

  list(): readonly TokenSeed[] {
    return [...this.tokens.values()];
  }

  /** Just the token id from the header, without verifying it (for the request log). */
  static peekTokenId(header: string | undefined): string | undefined {
    const value = TokenStore.extract(header);
    if (value === undefined) return undefined;
    const eq = value.lastIndexOf("=");
    return eq > 0 ? value.slice(0, eq) : value;
  }

  private static extract(header: string | undefined): string | undefined {
    // PVE accepts `PVEAPIToken=<id>=<secret>` and `PVEAPIToken <id>=<secret>`, URI-escaped.
    const match = /^PVEAPIToken[= ](\S+)$/.exec(header?.trim() ?? "");
    if (match?.[1] === undefined) return undefined;
    try {
      return decodeURIComponent(match[1]);
    } catch {
      return match[1];
    }
  }

  /** Verifies an Authorization header; reasons are the PVE 8.4+/9 status lines. */
  verify(header: string | undefined): AuthResult {
    const value = TokenStore.extract(header);
    if (value === undefined) return { ok: false, reason: "No ticket" };
    const eq = value.lastIndexOf("=");
    const tokenId = eq > 0 ? value.slice(0, eq) : value;
    const secret = eq > 0 ? value.slice(eq + 1) : "";
    const token = this.tokens.get(tokenId);
    if (token === undefined || !sameSecret(token.secret, secret)) {
      return { ok: false, reason: "Authentication failed!", tokenId };
    }
    return { ok: true, tokenId };
  }

  /** Privileges of the token or user on `path`, each with its propagate flag. */
  privileges(tokenId: string, path: string): Map<string, boolean> {
    const acls = this.aclsOf(tokenId);
    const parts = path.split("/").filter((p) => p !== "");
    const levels = ["/", ...parts.map((_, i) => `/${parts.slice(0, i + 1).join("/")}`)];
    let privs = new Map<string, boolean>();
    for (const level of levels) {
      const here = acls.filter(
        (acl: Acl) =>
          normalise(acl.path) === level && (level === normalise(path) || acl.propagate !== false),
      );
      if (here.length === 0) continue;
      privs = new Map();
      for (const acl of here) for (const p of acl.privileges) privs.set(p, acl.propagate !== false);
    }
    return privs;
  }

  has(tokenId: string, path: string, privilege: string): boolean {
    return this.privileges(tokenId, path).has(privilege);
  }

  /** ACL paths worth reporting in /access/permissions for this token. */
  aclPaths(tokenId: string): string[] {
    return this.aclsOf(tokenId).map((acl) => normalise(acl.path));
  }
}

function normalise(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
