import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../cli/automation";
import { ChangeCollector } from "../../cli/events";
import { formatChanges } from "../../cli/report";
import { VM_TYPE } from "../../provider/entry";

const TYPE = VM_TYPE;
const URN = `urn:pulumi:dev::p::${TYPE}::web`;

function step(
  kind: "pre" | "out",
  op: string,
  old: object,
  next: { inputs?: object; outputs?: object },
  extra = {},
): EngineEvent {
  const metadata = {
    op,
    urn: URN,
    type: TYPE,
    provider: "",
    old: { type: TYPE, urn: URN, id: "1", parent: "", provider: "", inputs: {}, outputs: old },
    new: {
      type: TYPE,
      urn: URN,
      id: "1",
      parent: "",
      provider: "",
      inputs: next.inputs ?? {},
      outputs: next.outputs ?? {},
    },
    ...extra,
  } as never;
  return kind === "pre"
    ? { sequence: 0, timestamp: 0, resourcePreEvent: { metadata } }
    : { sequence: 0, timestamp: 0, resOutputsEvent: { metadata } };
}

describe("events", () => {
  it("names each property with its recorded, live and desired values", () => {
    const c = new ChangeCollector();
    const recorded = { cores: 2, status: "running", __provider: "x" };
    const live = { cores: 8, status: "running", __provider: "y" };
    c.onEvent(step("pre", "refresh", recorded, { outputs: recorded }));
    c.onEvent(step("out", "refresh", recorded, { outputs: live }));
    c.onEvent(step("pre", "update", live, { inputs: { cores: 2, memory: undefined } }));
    expect(c.changes()).toEqual([
      {
        urn: URN,
        type: TYPE,
        name: "web",
        op: "update",
        properties: [{ property: "cores", recorded: 2, live: 8, desired: 2, changedOutside: true }],
      },
    ]);
  });

  it("reports a program change as not changed outside Pulumi", () => {
    const c = new ChangeCollector();
    c.onEvent(step("pre", "update", { memory: 1024 }, { inputs: { memory: 2048 } }));
    expect(c.changes()[0]?.properties).toEqual([
      { property: "memory", live: 1024, desired: 2048, changedOutside: false },
    ]);
  });

  it("uses the engine's detailed diff when a provider sends one", () => {
    const c = new ChangeCollector();
    c.onEvent(
      step(
        "pre",
        "replace",
        { node: "a" },
        { inputs: { node: "b", tags: ["x"] } },
        { detailedDiff: { node: { diffKind: "update-replace", inputDiff: true } } },
      ),
    );
    expect(c.changes()[0]?.properties.map((p) => p.property)).toEqual(["node"]);
  });

  it("lists a refresh-only change as op refresh and leaves unchanged resources out", () => {
    const c = new ChangeCollector();
    c.onEvent(
      step("out", "refresh", { ipv4Addresses: ["10.0.0.5"] }, { outputs: { ipv4Addresses: [] } }),
    );
    c.onEvent(step("pre", "same", {}, {}));
    const other = new ChangeCollector();
    other.onEvent(step("out", "refresh", { a: 1 }, { outputs: { a: 1 } }));
    other.onEvent(step("pre", "same", {}, {}));
    expect(c.changes().map((r) => [r.op, r.properties.map((p) => p.property)])).toEqual([
      ["refresh", ["ipv4Addresses"]],
    ]);
    expect(other.changes()).toEqual([]);
  });

  it("shows every secret value as [secret], however deep", () => {
    const secret = {
      "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "[secret]",
    };
    const c = new ChangeCollector();
    c.onEvent(
      step(
        "pre",
        "update",
        { cloudInit: { hostname: "a", users: secret }, cores: 1 },
        { inputs: { cloudInit: { hostname: "b", users: secret }, cores: 1 } },
      ),
    );
    expect(c.changes()[0]?.properties).toEqual([
      {
        property: "cloudInit",
        live: { hostname: "a", users: "[secret]" },
        desired: { hostname: "b", users: "[secret]" },
        changedOutside: false,
      },
    ]);
  });

  it("names the secret-holding property when an update changes nothing visible", () => {
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };
    const c = new ChangeCollector();
    c.onEvent(
      step(
        "pre",
        "update",
        { cloudInit: { userData: secret }, cores: 1 },
        { inputs: { cloudInit: { userData: secret }, cores: 1 } },
      ),
    );
    expect(c.changes()[0]?.properties.map((p) => [p.property, p.desired])).toEqual([
      ["cloudInit", { userData: "[secret]" }],
    ]);
  });

  it("says a secret value changed, never showing it, when the change is inside a secret", () => {
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };
    const c = new ChangeCollector();
    c.onEvent(
      step(
        "pre",
        "update",
        { cloudInit: { users: secret } },
        { inputs: { cloudInit: { users: secret } } },
      ),
    );
    expect(c.changes()[0]?.properties[0]).toMatchObject({
      property: "cloudInit",
      secretChanged: true,
    });
    expect(formatChanges(c.changes())).toContain(
      "cloudInit: a secret value changed (program; not shown)",
    );
  });

  it("after up, tells what the refresh found outside Pulumi and what became of it", () => {
    const c = new ChangeCollector({ outcome: true });
    const recorded = { memory: 1024, status: "running", ipv4Addresses: ["10.0.0.5"] };
    const found = { memory: 4096, status: "stopped", ipv4Addresses: [] };
    const after = { memory: 1024, status: "running", ipv4Addresses: [] };
    c.onEvent(step("pre", "refresh", recorded, { outputs: recorded }));
    c.onEvent(step("out", "refresh", recorded, { outputs: found }));
    c.onEvent(step("pre", "update", found, { inputs: { memory: 1024 } }));
    c.onEvent(step("out", "update", found, { inputs: { memory: 1024 }, outputs: after }));
    const lines = formatChanges(c.changes(), "up").split("\n");
    expect(lines).toEqual([
      `  ~ web (${TYPE}): update`,
      '      ipv4Addresses: found [] (changed outside Pulumi; recorded ["10.0.0.5"]) → left as found',
      "      memory: found 4096 (changed outside Pulumi; recorded 1024) → converged to 1024",
      '      status: found "stopped" (changed outside Pulumi; recorded "running") → converged to "running"',
    ]);
    expect(lines.join("\n")).not.toContain("the program sets");
  });

  it("keeps a drift report's outputs as planned: no value after", () => {
    const c = new ChangeCollector();
    c.onEvent(step("pre", "update", { memory: 4096 }, { inputs: { memory: 1024 } }));
    c.onEvent(step("out", "update", { memory: 4096 }, { outputs: { memory: 1024 } }));
    expect(c.changes()[0]?.properties[0]).not.toHaveProperty("after");
  });

  it("keeps the engine's error diagnostics", () => {
    const c = new ChangeCollector();
    c.onEvent({
      sequence: 0,
      timestamp: 0,
      diagnosticEvent: { message: "boom\n", color: "never", severity: "error" },
    });
    c.onEvent({
      sequence: 0,
      timestamp: 0,
      diagnosticEvent: { message: "fine", color: "never", severity: "info" },
    });
    expect(c.errors).toEqual(["boom"]);
  });
  it("reports a resource the refresh finds deleted as one fact, not every output unset", () => {
    const c = new ChangeCollector();
    const recorded = { vmid: 100, cores: 2, ipv4Addresses: ["10.0.0.5"], __provider: "x" };
    const gone: EngineEvent = {
      sequence: 0,
      timestamp: 0,
      resOutputsEvent: {
        metadata: {
          op: "refresh",
          urn: URN,
          type: TYPE,
          provider: "",
          old: {
            type: TYPE,
            urn: URN,
            id: "1",
            parent: "",
            provider: "",
            inputs: {},
            outputs: recorded,
          },
        },
      } as never,
    };
    c.onEvent(gone);
    c.onEvent(step("pre", "create", {}, { inputs: { cores: 2 } }));
    const changes = c.changes();
    expect(changes).toEqual([
      { urn: URN, type: TYPE, name: "web", op: "create", deletedOutside: true, properties: [] },
    ]);
    expect(formatChanges(changes)).toBe(`  + web (${TYPE}): deleted outside Pulumi; create`);
  });

  it("does not list a tag reorder among a replace's changed properties", () => {
    const c = new ChangeCollector();
    c.onEvent(
      step(
        "pre",
        "replace",
        { node: "a", tags: ["db", "web"] },
        { inputs: { node: "b", tags: ["Web", "db"] } },
      ),
    );
    expect(c.changes()[0]?.properties.map((p) => p.property)).toEqual(["node"]);
  });
});

describe("events on more than one cluster", () => {
  const STACK = "urn:pulumi:dev::p::";
  const DEFAULT = `${STACK}pulumi:providers:pulumi-nodejs::default::d1`;
  const DC2 = `${STACK}pulumi:providers:pulumi-nodejs::dc2`;

  /** A preview's event for resource `name` made through `provider`. */
  function on(provider: string, name: string, op: string, old: object, inputs: object) {
    const urn = `${STACK}${TYPE}::${name}`;
    const state = (props: object) => ({ type: TYPE, urn, id: "1", parent: "", provider, ...props });
    const metadata = {
      op,
      urn,
      type: TYPE,
      provider,
      old: state({ inputs: {}, outputs: old }),
      new: state({ inputs, outputs: {} }),
    } as never;
    return { sequence: 0, timestamp: 0, resourcePreEvent: { metadata } } satisfies EngineEvent;
  }

  /** The explicit provider's own step: its inputs name its endpoint. */
  const dc2Provider: EngineEvent = {
    sequence: 0,
    timestamp: 0,
    resourcePreEvent: {
      metadata: {
        op: "same",
        urn: DC2,
        type: "pulumi:providers:pulumi-nodejs",
        provider: "",
        new: {
          type: "pulumi:providers:pulumi-nodejs",
          urn: DC2,
          id: "p2",
          parent: "",
          provider: "",
          inputs: { "proxmox:endpoint": "https://pve.dc2.example.com:8006" },
          outputs: {},
        },
      } as never,
    },
  };

  it("names the provider of each change, and an explicit one's endpoint host", () => {
    const c = new ChangeCollector();
    c.onEvent(dc2Provider);
    c.onEvent(on(DEFAULT, "one", "update", { cores: 1 }, { cores: 2 }));
    c.onEvent(on(`${DC2}::p2`, "two", "update", { cores: 1 }, { cores: 4 }));
    const changes = c.changes();
    expect(changes.map((x) => [x.name, x.provider, x.cluster])).toEqual([
      ["one", "default", undefined],
      ["two", "dc2", "pve.dc2.example.com:8006"],
    ]);
    expect(formatChanges(changes)).toBe(
      [
        `  ~ one (${TYPE}) on provider default (the stack config's cluster): update`,
        "      cores: 1 → 2 (program)",
        `  ~ two (${TYPE}) on provider dc2 (pve.dc2.example.com:8006): update`,
        "      cores: 1 → 4 (program)",
      ].join("\n"),
    );
  });

  it("takes a delete's outcome, which has no new state, in an up or destroy", () => {
    const c = new ChangeCollector({ outcome: true });
    const deleted = on(DEFAULT, "one", "delete", { cores: 1 }, {});
    const outcome = {
      sequence: 1,
      timestamp: 0,
      resOutputsEvent: {
        metadata: { ...(deleted.resourcePreEvent.metadata as object), new: null } as never,
      },
    } satisfies EngineEvent;
    c.onEvent(deleted);
    expect(() => c.onEvent(outcome)).not.toThrow();
    expect(c.changes().map((x) => [x.name, x.op])).toEqual([["one", "delete"]]);
  });

  it("counts a resource without change among the clusters, and names none for one cluster", () => {
    const two = new ChangeCollector();
    two.onEvent(on(DEFAULT, "one", "same", { cores: 1 }, { cores: 1 }));
    two.onEvent(on(`${DC2}::p2`, "two", "update", { cores: 1 }, { cores: 4 }));
    expect(two.changes().map((x) => x.provider)).toEqual(["dc2"]);

    const one = new ChangeCollector();
    one.onEvent(on(`${DC2}::p2`, "two", "update", { cores: 1 }, { cores: 4 }));
    expect(one.changes()[0]).not.toHaveProperty("provider");
  });
});
