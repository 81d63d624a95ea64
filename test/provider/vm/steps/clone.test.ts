import { beforeEach, describe, expect, it } from "vitest";
import type { CloneRequest } from "../../../../provider/pve/api/proxmox-api";
import { TransientError } from "../../../../provider/pve/errors";
import { identityOf, probeOrder } from "../../../../provider/vm/identity";
import { checkVm } from "../../../../provider/vm/operations/check";
import { createVm, PROBE_WINDOW } from "../../../../provider/vm/operations/create";
import type { ResolvedInputs } from "../../../../provider/vm/steps/resolved-inputs";
import { FakeProxmoxApi } from "../../../support/fake-api";
import { testContext } from "../../../support/test-context";

const owner = { project: "infra", stack: "dev", name: "web" };
const inputs = checkVm(
  {},
  { identity: owner, node: "pve1", template: 9000, cores: 2, memory: 1024 },
).inputs as ResolvedInputs;
const identity = identityOf(owner, { node: "pve1", template: 9000, isoStorage: "local" });
const first = probeOrder(identity, inputs.vmidRange, PROBE_WINDOW)[0] ?? 0;

const lostAnswer = () =>
  new TransientError("TIMEOUT", "POST /nodes/pve1/qemu/9000/clone got no answer within 60 s.");

const guests = (api: FakeProxmoxApi) => [...api.vms.keys()].filter((vmid) => vmid !== 9000);

describe("clone", () => {
  let api: FakeProxmoxApi;
  let clone: (request: CloneRequest) => Promise<string>;
  beforeEach(() => {
    api = new FakeProxmoxApi();
    clone = api.cloneVm.bind(api);
  });

  it("adopts its own VM when PVE created it but the clone POST's answer was lost", async () => {
    let calls = 0;
    api.cloneVm = async (request) => {
      calls++;
      await clone(request);
      if (calls === 1) throw lostAnswer();
      return "UPID:unused";
    };
    const ctx = testContext(api);
    const state = await createVm(ctx, inputs);
    expect(calls).toBe(1);
    expect(state.vmid).toBe(first);
    expect(guests(api)).toEqual([first]);
    expect(ctx.progressLines).toContain(`VM ${first} on pve1: found this resource's clone`);
  });

  it("sends the clone again to the same VMID when the lost request created nothing", async () => {
    api.failNext("cloneVm", lostAnswer());
    const ctx = testContext(api);
    const state = await createVm(ctx, inputs);
    const sent = api.callsOf("cloneVm").map(([request]) => (request as CloneRequest).newid);
    expect(sent).toEqual([first, first]);
    expect(state.vmid).toBe(first);
    expect(guests(api)).toEqual([first]);
  });

  it("adopts the VM a lost request created late, when the repeat is refused as already existing", async () => {
    let pending: CloneRequest | undefined;
    api.cloneVm = async (request) => {
      if (pending === undefined && api.callsOf("cloneVm").length === 0) {
        api.calls.push({ method: "cloneVm", args: [request] });
        pending = request;
        throw lostAnswer();
      }
      // The first request's worker wins the target's file lock just before the repeat.
      if (pending !== undefined) await clone(pending);
      pending = undefined;
      return clone(request);
    };
    const state = await createVm(testContext(api), inputs);
    expect(state.vmid).toBe(first);
    expect(guests(api)).toEqual([first]);
  });

  it("gives up after three lost answers, naming the target VMID and node", async () => {
    api.failNext("cloneVm", lostAnswer(), 3);
    const error = await createVm(testContext(api), inputs).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT", context: { vmid: first, node: "pve1" } });
    expect((error as Error).message).toMatch(
      new RegExp(`^VM ${first} on pve1: cloning template 9000 \\(node pve1\\) failed: `),
    );
    expect(api.callsOf("cloneVm")).toHaveLength(3);
    expect(guests(api)).toEqual([]);
  });
});
