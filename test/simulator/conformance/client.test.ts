import { describe, expect, it } from "vitest";
import { ConformanceClient, OutOfRangeError } from "../../../simulator/conformance/client.js";

const client = new ConformanceClient({
  endpoint: "https://pve.example:8006",
  login: { kind: "token", token: "a@pve!b=c" },
  range: { min: 4000, max: 4009 },
  readOnly: [9000],
});

describe("the conformance client's range guard", () => {
  it("lets the scenario write to any VMID of its range", () => {
    expect(() => client.guard("PUT", "/nodes/pve1/qemu/4009/config")).not.toThrow();
    expect(() => client.guard("DELETE", "/nodes/pve1/qemu/4000")).not.toThrow();
  });

  it("lets it read the template and clone from it, and nothing else", () => {
    expect(() => client.guard("GET", "/nodes/pve1/qemu/9000/config")).not.toThrow();
    expect(() => client.guard("POST", "/nodes/pve1/qemu/9000/clone")).not.toThrow();
    expect(() => client.guard("PUT", "/nodes/pve1/qemu/9000/config")).toThrow(OutOfRangeError);
  });

  it("refuses any request naming a VMID outside the range, before it is sent", () => {
    expect(() => client.guard("GET", "/nodes/pve1/qemu/4010/config")).toThrow(
      "refused GET /nodes/pve1/qemu/4010/config: VMID 4010 is outside --vmid-range 4000-4009",
    );
    expect(() => client.guard("POST", "/nodes/pve1/qemu/100/status/stop")).toThrow(OutOfRangeError);
  });

  it("leaves requests that name no VM alone", () => {
    expect(() => client.guard("GET", "/cluster/resources")).not.toThrow();
  });
});
