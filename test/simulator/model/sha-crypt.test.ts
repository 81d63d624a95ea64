import { describe, expect, it } from "vitest";
import { hashPassword, sha256Crypt } from "../../../simulator/model/sha-crypt.js";

// Expected values from `openssl passwd -5 -salt <salt> <password>`.
describe("model/sha-crypt", () => {
  it("hashes as glibc's SHA-256 crypt does", () => {
    expect(sha256Crypt("Hello world!", "saltstring")).toBe(
      "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5",
    );
    expect(sha256Crypt("pässwörd with a longer text 1234567890", "ab/cd.XY")).toBe(
      "$5$ab/cd.XY$f8B1e.QEwKkkzqdxlRknigesZqh7MDX.mAfBLq/Nde6",
    );
  });

  it("keeps a value that already is a crypt hash and hashes anything else with a new salt", () => {
    const hashed = "$6$rounds$abcdefgh";
    expect(hashPassword(hashed)).toBe(hashed);
    const first = hashPassword("secret");
    const salt = /^\$5\$([^$]{8})\$/.exec(first)?.[1] ?? "";
    expect(first).toBe(sha256Crypt("secret", salt));
    expect(hashPassword("secret")).not.toBe(first);
  });
});
