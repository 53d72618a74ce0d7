import { describe, expect, it } from "vitest";
import { formatUtcTick, utcTicks } from "@/lib/charts/time-ticks";
import { valueTicks } from "@/lib/charts/value-ticks";
import { historyNotice, parseSymbolRange, parseUtcTime, rangeToQuery, resolveWindow, toUtcInputValue, type SymbolRange } from "@/lib/url-state/symbol";

const now = new Date("2026-08-10T15:31:02.417Z");

describe("parseSymbolRange", () => {
  it("defaults to the last 15 min without a range", () => {
    expect(parseSymbolRange({})).toEqual({ ok: true, range: { kind: "15m" } });
    expect(parseSymbolRange(new URLSearchParams("range="))).toEqual({ ok: true, range: { kind: "15m" } });
  });

  it("reads each named range, ignoring a stray from/to", () => {
    for (const kind of ["15m", "1h", "day"] as const) {
      expect(parseSymbolRange(new URLSearchParams(`range=${kind}&from=x`))).toEqual({ ok: true, range: { kind } });
    }
  });

  it("reads a custom window in ISO UTC, with an offset, or as typed in the page's fields (read as UTC)", () => {
    expect(parseSymbolRange({ range: "custom", from: "2026-08-10T15:30:00Z", to: "2026-08-10T18:30:00.5+02:00" })).toEqual({
      ok: true,
      range: { kind: "custom", from: "2026-08-10T15:30:00.000Z", to: "2026-08-10T16:30:00.500Z" },
    });
    expect(parseSymbolRange({ range: "custom", from: "2026-08-10 15:30", to: " 2026-08-10 15:45:10 " })).toEqual({
      ok: true,
      range: { kind: "custom", from: "2026-08-10T15:30:00.000Z", to: "2026-08-10T15:45:10.000Z" },
    });
  });

  it("says what is wrong, in words, for bad input", () => {
    const message = (q: string) => {
      const r = parseSymbolRange(new URLSearchParams(q));
      return r.ok ? "ok" : r.message;
    };
    expect(message("range=2h")).toBe('range "2h" is not one of 15m, 1h, day, custom');
    expect(message("range=custom&to=2026-08-10T15:30:00Z")).toMatch(/^from is missing: give a UTC time like/);
    expect(message("range=custom&from=yesterday&to=2026-08-10T15:30:00Z")).toMatch(/^from "yesterday" is not a time/);
    expect(message("range=custom&from=2026-02-31T10:00:00Z&to=2026-08-10T15:30:00Z")).toMatch(/^from "2026-02-31T10:00:00Z" is not a time/);
    expect(message("range=custom&from=2026-08-10T10:00:00Z&to=2026-08-10T24:00:00Z")).toMatch(/^to "2026-08-10T24:00:00Z" is not a time/);
    expect(message("range=custom&from=2026-08-10T15:30:00Z&to=2026-08-10T15:00:00Z")).toBe("to must be after from");
    expect(message("range=custom&from=2020-01-01T00:00:00Z&to=2026-08-10T15:00:00Z")).toBe("a custom window may span at most 366 days");
  });

  it("round-trips through the query string", () => {
    const ranges: SymbolRange[] = [
      { kind: "15m" },
      { kind: "1h" },
      { kind: "day" },
      { kind: "custom", from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" },
    ];
    for (const r of ranges) expect(parseSymbolRange(new URLSearchParams(rangeToQuery(r)))).toEqual({ ok: true, range: r });
  });
});

describe("resolveWindow", () => {
  it("ends 15 min and 1 h at now, and polls them", () => {
    expect(resolveWindow({ kind: "15m" }, { now, latestAt: null })).toEqual({ from: "2026-08-10T15:16:02.417Z", to: now.toISOString(), live: true });
    expect(resolveWindow({ kind: "1h" }, { now, latestAt: null })).toEqual({ from: "2026-08-10T14:31:02.417Z", to: now.toISOString(), live: true });
  });

  it("starts the trading day at 00:00 UTC of the latest data's day: today while live, that whole day under review", () => {
    expect(resolveWindow({ kind: "day" }, { now, latestAt: "2026-08-10T15:31:01.000Z" })).toEqual({
      from: "2026-08-10T00:00:00.000Z",
      to: now.toISOString(),
      live: true,
    });
    expect(resolveWindow({ kind: "day" }, { now, latestAt: "2026-08-07T09:00:00.000Z" })).toEqual({
      from: "2026-08-07T00:00:00.000Z",
      to: "2026-08-08T00:00:00.000Z",
      live: false,
    });
    expect(resolveWindow({ kind: "day" }, { now, latestAt: null }).from).toBe("2026-08-10T00:00:00.000Z");
  });

  it("polls a custom window only while it reaches now", () => {
    expect(resolveWindow({ kind: "custom", from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T15:10:00.000Z" }, { now, latestAt: null }).live).toBe(false);
    expect(resolveWindow({ kind: "custom", from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" }, { now, latestAt: null }).live).toBe(true);
  });
});

describe("historyNotice", () => {
  it("offers the ranges around the latest data when the window that ends now is empty", () => {
    const w = resolveWindow({ kind: "15m" }, { now, latestAt: null });
    const n = historyNotice(w, "2026-08-07T09:00:00.000Z");
    expect(n?.latestAt).toBe("2026-08-07T09:00:00.000Z");
    expect(n?.offers.map((o) => o.range)).toEqual([
      { kind: "custom", from: "2026-08-07T08:45:00.000Z", to: "2026-08-07T09:01:00.000Z" },
      { kind: "custom", from: "2026-08-07T08:00:00.000Z", to: "2026-08-07T09:01:00.000Z" },
      { kind: "day" },
    ]);
  });

  it("says nothing when there is recent data, no data at all, or the window is history", () => {
    const live = resolveWindow({ kind: "15m" }, { now, latestAt: null });
    expect(historyNotice(live, "2026-08-10T15:31:00.000Z")).toBeNull();
    expect(historyNotice(live, null)).toBeNull();
    expect(historyNotice({ from: "2026-08-07T00:00:00.000Z", to: "2026-08-08T00:00:00.000Z", live: false }, "2026-08-07T09:00:00.000Z")).toBeNull();
  });
});

describe("UTC helpers", () => {
  it("fills a time field with the UTC time as the page shows times", () => {
    expect(toUtcInputValue("2026-08-10T15:31:00.000Z")).toBe("2026-08-10 15:31:00");
    // Kept when there are some: the same instant when the field is sent back.
    expect(toUtcInputValue("2026-08-10T15:31:02.417Z")).toBe("2026-08-10 15:31:02.417");
    expect(parseUtcTime(toUtcInputValue("2026-08-10T15:31:02.417Z"))).toBe(Date.parse("2026-08-10T15:31:02.417Z"));
    expect(toUtcInputValue("nonsense")).toBe("");
  });

  it("puts ticks on round UTC instants and labels them by the window's span", () => {
    const from = Date.parse("2026-08-10T15:16:02.417Z");
    const to = Date.parse("2026-08-10T15:31:02.417Z");
    const ticks = utcTicks(from, to, 6);
    expect(ticks.map((t) => formatUtcTick(t, to - from))).toEqual(["15:20", "15:25", "15:30"]);
    const day = Date.parse("2026-08-10T00:00:00Z");
    expect(utcTicks(day, day + 20 * 86_400_000, 6).map((t) => formatUtcTick(t, 20 * 86_400_000))).toEqual(["Aug 13", "Aug 20", "Aug 27"]);
    expect(utcTicks(5, 5)).toEqual([]);
  });
});

describe("valueTicks", () => {
  it("keeps zero in view and ends on round values", () => {
    expect(valueTicks(300, 500)).toEqual([0, 200, 400, 600]);
    expect(valueTicks(-3, 0)).toEqual([-3, -2, -1, 0]);
    expect(valueTicks(0, 0.5)).toEqual([0, 0.2, 0.4, 0.6]);
    expect(valueTicks(0, 0.3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(valueTicks(0, 0)).toEqual([-1, 0, 1]);
  });
});
