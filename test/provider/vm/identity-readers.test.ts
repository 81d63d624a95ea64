import { describe, expect, it } from "vitest";
import { identityOfInputs } from "../../../provider/entry";
import {
  describe as describeVm,
  markFor,
  markMatches,
  placementOfStored,
  PLACEMENT_NAMES,
  readMark,
} from "../../../provider/vm/identity";
import { checkVm } from "../../../provider/vm/operations/check";
import { namingOf, type ResolvedInputs } from "../../../provider/vm/steps/resolved-inputs";
import { fieldsChanged } from "../../../provider/vm/spec/derive";
import { FIELDS } from "../../../provider/vm/spec/fields";

const owner = { project: "infra", stack: "dev", name: "db" };
const declared = { identity: owner, node: "pve1", template: 9000 };

/** The inputs as `check` stores them, which is what a pending create keeps in the state. */
function checked(news: Record<string, unknown>): ResolvedInputs {
  const result = checkVm({}, news);
  expect(result.failures).toEqual([]);
  return result.inputs as ResolvedInputs;
}

/** Each placement input with the spec's own example of a valid value (one that is not its default). */
const changes = fieldsChanged("replace").map((name) => [name, FIELDS[name].example.valid] as const);

describe("every reader of the placement", () => {
  it("reads the placement the spec declares: the inputs whose change replaces the VM", () => {
    expect([...PLACEMENT_NAMES].sort()).toEqual(fieldsChanged("replace").sort());
  });

  it.each(changes)(
    "gives the CLI the identity the create computes when %s changes to %j",
    (name, value) => {
      const inputs = checked({ ...declared, [name]: value });
      const created = namingOf(inputs);

      expect(created.identity).not.toBe(namingOf(checked(declared)).identity);
      // A pending create's stored inputs, checked or as declared, name the VM the create made.
      expect(identityOfInputs(inputs)).toBe(created.identity);
      expect(identityOfInputs({ ...declared, [name]: value })).toBe(created.identity);
    },
  );

  it.each(changes)(
    "writes a mark that adopting reads back as the same placement when %s is %j",
    (name, value) => {
      const inputs = checked({ ...declared, [name]: value });
      const { identity, placement } = namingOf(inputs);
      const mark = readMark(describeVm(undefined, markFor(identity, placement, "creating")));

      expect(mark?.id).toBe(identity);
      expect(mark && markMatches(mark, placement)).toBe(true);
      expect(mark && markMatches(mark, namingOf(checked(declared)).placement)).toBe(false);
      expect(placementOfStored(inputs)).toEqual(placementOfStored({ ...declared, [name]: value }));
    },
  );
});
