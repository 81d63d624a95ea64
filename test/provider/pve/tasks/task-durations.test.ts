import { describe, expect, it } from "vitest";
import { TaskDurations } from "../../../../provider/pve/tasks/task-durations";

describe("TaskDurations", () => {
  it("has no quiet time for a task type never seen to end", () => {
    expect(new TaskDurations().quietMs("qmclone")).toBe(0);
  });

  it("keeps quiet for 90 % of the shortest recent run of the type", () => {
    const durations = new TaskDurations();
    durations.record("qmclone", 3_000);
    durations.record("qmclone", 2_000);
    durations.record("qmstart", 900);
    expect(durations.quietMs("qmclone")).toBe(1_800);
    expect(durations.quietMs("qmstart")).toBe(810);
  });

  it("forgets runs older than the last sixteen, so a host that got slower is followed", () => {
    const durations = new TaskDurations();
    durations.record("qmclone", 500);
    for (let i = 0; i < 16; i++) durations.record("qmclone", 4_000);
    expect(durations.quietMs("qmclone")).toBe(3_600);
  });
});
