/**
 * The one rule for "not current" that every live page applies (lib/live/not-current.ts): data last
 * confirmed more than 5 s ago is not current, whether or not a poll has failed.
 */
import { describe, expect, it } from "vitest";
import { NOT_CURRENT_AFTER_MS, dataAge, notUpdatedWords } from "@/lib/live/not-current";
import { formatAge } from "@/lib/text/format";

const NOW = Date.parse("2026-11-30T05:31:00.000Z");

describe("dataAge: when a live page stops calling its data current", () => {
  it("calls data current up to 5 s old, and not current past that, with no failed poll needed", () => {
    expect(NOT_CURRENT_AFTER_MS).toBe(5_000);
    expect(dataAge(NOW - 1_000, NOW)).toEqual({ ageMs: 1_000, notCurrent: false });
    expect(dataAge(NOW - 5_000, NOW)).toEqual({ ageMs: 5_000, notCurrent: false });
    expect(dataAge(NOW - 5_001, NOW)).toEqual({ ageMs: 5_001, notCurrent: true });
    expect(dataAge(NOW - 600_000, NOW)).toEqual({ ageMs: 600_000, notCurrent: true });
  });

  it("judges nothing before the first answer, and counts an answer from a clock ahead as new", () => {
    expect(dataAge(0, NOW)).toEqual({ ageMs: 0, notCurrent: false });
    expect(dataAge(NOW + 2_000, NOW)).toEqual({ ageMs: 0, notCurrent: false });
  });

  it("says how long the page has gone without an update, in whole seconds", () => {
    expect(notUpdatedWords(7_400)).toBe("the page has not been updated for 7 s");
    // As the page's "updated N s ago" counts it, whole seconds down: never a second apart on one screen.
    expect(notUpdatedWords(33_600)).toBe(`the page has not been updated for ${formatAge(33_600)}`);
    expect(notUpdatedWords(33_600)).toBe("the page has not been updated for 33 s");
  });
});
