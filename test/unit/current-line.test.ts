import { describe, expect, it } from "vitest";
import { RECONCILIATION_OUTCOMES } from "@/lib/journal/contract";
import { COMPARED_OUTCOMES, COMPARED_OUTCOMES_SQL, lineAsOfLatestCycle } from "@/lib/reconcile/current-line";

const stored = { reconciliationId: 7, at: "2026-08-10T15:30:00.000Z", ours: 3, theirs: 5 };

describe("lineAsOfLatestCycle: a symbol missing from the latest compared cycle is flat", () => {
  it("keeps the stored sizes when the latest compared cycle is the one that stored them", () => {
    expect(lineAsOfLatestCycle(stored, { id: 7, at: "2026-08-10T15:30:00.000Z" })).toEqual({ current: true, ...stored });
  });

  it("keeps the stored sizes when the bot has no compared cycle to compare with", () => {
    expect(lineAsOfLatestCycle(stored, null)).toEqual({ current: true, ...stored });
  });

  it("reads flat on both sides, as of the later cycle, when that cycle left the symbol out", () => {
    expect(lineAsOfLatestCycle(stored, { id: 9, at: "2026-08-10T15:31:00.000Z" })).toEqual({
      current: false,
      ours: 0,
      theirs: 0,
      reconciliationId: 9,
      at: "2026-08-10T15:31:00.000Z",
    });
  });

  it("keeps the stored time when the caller does not know the later cycle's", () => {
    expect(lineAsOfLatestCycle(stored, { id: 9, at: null })).toMatchObject({ current: false, ours: 0, theirs: 0, reconciliationId: 9, at: stored.at });
  });

  it("a stored line from a cycle numbered after the latest compared one stays current", () => {
    expect(lineAsOfLatestCycle(stored, { id: 6, at: "2026-08-10T15:29:00.000Z" })).toMatchObject({ current: true, ours: 3, theirs: 5, reconciliationId: 7 });
  });
});

describe("compared cycles", () => {
  it("only clean and drift cycles compared the books; skipped and error cycles say nothing about them", () => {
    expect(COMPARED_OUTCOMES).toEqual(["clean", "drift"]);
    expect(RECONCILIATION_OUTCOMES.filter((o) => !(COMPARED_OUTCOMES as readonly string[]).includes(o))).toEqual(["skipped", "error"]);
    expect(COMPARED_OUTCOMES_SQL).toBe("('clean', 'drift')");
  });
});
