import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { driftSize, formatAge, formatAgo, formatDuration, formatNumber, formatUtc, formatUtcDate, sameUtcDay, signedQty } from "@/lib/text/format";

describe("formatAge", () => {
  it.each([
    [0, "0 s"],
    [59_999, "59 s"],
    [61_000, "1 min 1 s"],
    [3_660_000, "1 h 1 min"],
    [49 * 3_600_000, "2 d 1 h"],
    [-5_000, "5 s in the future"],
  ])("%s ms reads %s", (ms, text) => expect(formatAge(ms)).toBe(text));

  it("says unknown rather than inventing an age", () => {
    expect(formatAge(null)).toBe("unknown");
  });
});

describe("formatAgo and formatDuration: a time ahead of the reader's clock", () => {
  it("says ago for the past and in the future for the future, never both", () => {
    expect(formatAgo(61_000)).toBe("1 min 1 s ago");
    expect(formatAgo(-106_000)).toBe("1 min 46 s in the future");
    expect(formatAgo(null)).toBe("at an unknown time");
  });
  it("does not count a duration down when its start is in the future", () => {
    expect(formatDuration(210_000)).toBe("3 min 30 s");
    expect(formatDuration(-11_000)).toBe("unknown (it starts 11 s in the future: a clock ahead?)");
    expect(formatDuration(Number.NaN)).toBe("unknown");
  });
});

describe("formatUtcDate", () => {
  it("always says the date, today's too, to the minute", () => {
    expect(formatUtcDate("2026-12-02T02:35:06.123Z")).toBe("2 Dec 2026 at 02:35 UTC");
    expect(formatUtcDate("not a time")).toBe("not a time");
  });
});

describe("formatUtc", () => {
  const now = Date.parse("2026-12-01T05:40:00Z");
  it("writes only the UTC time, to the second, on the reader's UTC day", () => {
    expect(formatUtc("2026-12-01T05:31:02.417Z", now)).toBe("05:31:02 UTC");
    expect(formatUtc("2026-12-01T00:00:00.000Z", new Date(now))).toBe("00:00:00 UTC");
  });
  it("says the day on another day, and the year in another year", () => {
    expect(formatUtc("2026-11-30T05:31:02.417Z", now)).toBe("Nov 30 05:31:02 UTC");
    expect(formatUtc("2026-12-01T05:31:02.417+06:00", now)).toBe("Nov 30 23:31:02 UTC");
    expect(formatUtc("2025-11-30T05:31:02.417Z", now)).toBe("Nov 30 2025 05:31:02 UTC");
  });
  it("always says the day and year without a reader's now", () => expect(formatUtc("2026-08-10T15:31:02.417Z")).toBe("Aug 10 2026 15:31:02 UTC"));
  it("shows an unreadable time as it is", () => expect(formatUtc("garbage")).toBe("garbage"));
});

describe("signedQty and driftSize", () => {
  it("signs a quantity, never a zero, and keeps up to eight decimals", () => {
    expect(signedQty(59)).toBe("+59");
    expect(signedQty(-0.001)).toBe("-0.001");
    expect(signedQty(0)).toBe("0");
    expect(signedQty(1234.123456789)).toBe("+1,234.12345679");
  });
  it("says step for one step either way and steps otherwise, rounded to hundredths", () => {
    expect(driftSize(-0.001, -1)).toBe("-0.001 (-1 step)");
    expect(driftSize(0.001, 1.0004)).toBe("+0.001 (+1 step)");
    expect(driftSize(3, 300)).toBe("+3 (+300 steps)");
    expect(driftSize(0.0015, 1.5)).toBe("+0.0015 (+1.5 steps)");
    expect(driftSize(0.0004, 0.4)).toBe("+0.0004 (+0.4 steps)");
  });
});

describe("a range's end on the reader's day", () => {
  const now = Date.parse("2026-12-03T12:20:00.000Z");
  it("says its date when asked, as the start on another day does, with the year as today's", () => {
    expect(formatUtc("2026-12-03T12:15:00.000Z", now)).toBe("12:15:00 UTC");
    expect(formatUtc("2026-12-03T12:15:00.000Z", now, true)).toBe("Dec 3 12:15:00 UTC");
    expect(formatUtc("2026-08-10T09:58:00.000Z", now)).toBe("Aug 10 09:58:00 UTC");
  });
  it("knows whether two times share a UTC day", () => {
    expect(sameUtcDay("2026-12-03T00:00:00.000Z", "2026-12-03T23:59:59.999Z")).toBe(true);
    expect(sameUtcDay("2026-08-10T09:58:00.000Z", "2026-12-03T12:15:00.000Z")).toBe(false);
    expect(sameUtcDay("nonsense", "2026-12-03T12:15:00.000Z")).toBe(false);
  });
});

describe("formatNumber", () => {
  const intl = new Intl.NumberFormat("en-US", { maximumFractionDigits: 8 });

  it("writes what Intl's en-US with at most 8 decimals writes, for any number", () => {
    fc.assert(
      fc.property(fc.double(), (n) => {
        expect(formatNumber(n)).toBe(intl.format(n));
      }),
      { numRuns: 20_000 },
    );
    // Prices and sizes as bots write them: cents, steps, and the float sums between them.
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 10 }), (units, decimals) => {
        const n = units / 10 ** decimals;
        expect(formatNumber(n)).toBe(intl.format(n));
      }),
      { numRuns: 20_000 },
    );
  });

  it("agrees on the awkward ones: float sums, halves at the 8th decimal, exponents, the limits, -0 and what is no number", () => {
    const awkward = [
      0.1 + 0.2,
      1.000000005,
      0.123456785,
      1e-7,
      1.5e-8,
      5e-9,
      -0,
      0,
      9_999_999.99999999,
      9_999_999.999999999,
      1e7,
      -1e7,
      1_234_567.123456789,
      -1234.5,
      64_123.5,
      153.056,
      2 ** 53,
      1e21,
      Number.MIN_VALUE,
      Number.MAX_VALUE,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const n of awkward) expect(formatNumber(n), String(n)).toBe(intl.format(n));
    expect(formatNumber(64_123.5)).toBe("64,123.5");
    expect(formatNumber(-1_234_567.25)).toBe("-1,234,567.25");
  });
});
