import { describe, expect, it } from "vitest";
import { rootOnlyWrites } from "../../../../provider/vm/steps/root-only";

const inputs = {
  hookscript: "local:snippets/hook.pl",
  cpu: { cores: 2, affinity: "0-1" },
  memory: { sizeMiB: 2048, hugepages: 2 },
};

describe("rootOnlyWrites", () => {
  it("names each root-only input a token would write, and what to log in as", () => {
    const failures = rootOnlyWrites({}, inputs, "ops@pve!ci");
    expect(failures.map((f) => f.property)).toEqual([
      "hookscript",
      "cpu.affinity",
      "memory.hugepages",
    ]);
    expect(failures[0]?.reason).toBe(
      "PVE lets only root@pam set it, whatever the ACLs, and the API token ops@pve!ci is not " +
        "root@pam. Log in as root@pam with a password (proxmox:username and proxmox:password) " +
        "for this stack, or leave hookscript out.",
    );
  });

  it("lets root@pam write them, and leaves a value the change does not write alone", () => {
    expect(rootOnlyWrites({}, inputs, "root@pam")).toEqual([]);
    const olds = { ...inputs, hookscript: "local:snippets/old.pl" };
    expect(rootOnlyWrites(olds, inputs, "ops@pve!ci").map((f) => f.property)).toEqual([
      "hookscript",
    ]);
  });
});
