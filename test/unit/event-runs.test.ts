import { describe, expect, it } from "vitest";
import { eventRuns } from "@/lib/journal/event-runs";

const ev = (id: number, at: string, kind: string, detail = "{}", actor = "bot") => ({ id, at, kind, actor, detail });
const failed = '{"during":"lookup","error":"lookup failed: timed out"}';

describe("an order's history, runs folded", () => {
  it("folds a run of the same kind, actor and detail into one line with its count and last time", () => {
    const events = [
      ev(1, "03:00:00", "intent"),
      ev(2, "03:00:01", "timeout", '{"error":"send timed out"}'),
      ...Array.from({ length: 60 }, (_, i) => ev(3 + i, `03:${String(1 + i).padStart(2, "0")}:00`, "error", failed)),
      ev(63, "04:01:00", "lookup_found", '{"status":"filled"}'),
    ];
    const runs = eventRuns(events);
    expect(runs.map((r) => [r.event.id, r.event.kind, r.count, r.lastAt])).toEqual([
      [1, "intent", 1, "03:00:00"],
      [2, "timeout", 1, "03:00:01"],
      [3, "error", 60, "03:60:00"],
      [63, "lookup_found", 1, "04:01:00"],
    ]);
    // Nothing is lost: the counts add up to the events.
    expect(runs.reduce((n, r) => n + r.count, 0)).toBe(events.length);
  });

  it("keeps apart what differs in detail or actor, and runs that are not consecutive", () => {
    const runs = eventRuns([
      ev(1, "a", "error", failed),
      ev(2, "b", "error", '{"during":"lookup","error":"lookup failed: 502"}'),
      ev(3, "c", "error", failed),
      ev(4, "d", "operator", "{}", "operator:ana"),
      ev(5, "e", "operator", "{}", "operator:bo"),
    ]);
    expect(runs.map((r) => r.count)).toEqual([1, 1, 1, 1, 1]);
    expect(eventRuns([])).toEqual([]);
  });
});
