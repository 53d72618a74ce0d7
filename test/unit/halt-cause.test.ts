import { describe, expect, it } from "vitest";
import { haltCauseText, type CauseOrderSettled } from "@/lib/breaker/halt-cause";

/** The reader's clock on the day of the times below: they read as times of day. */
const SAME_DAY = Date.parse("2026-12-01T12:00:00Z");
const hand = { reason: "halted by hand: venue maintenance at 06:00", changedBy: "operator:ana", changedAt: "2026-12-01T05:31:07.000Z", now: SAME_DAY };

describe("haltCauseText", () => {
  it("shows the recorded reason as current while its cause may still be there", () => {
    expect(haltCauseText({ reason: "unknown position BNBUSDT -26.04", inSyncSince: null })).toBe("unknown position BNBUSDT -26.04");
  });

  it("says the cause is gone, and since when in UTC, once the symbols are back in sync", () => {
    expect(haltCauseText({ reason: "unknown position BNBUSDT -26.04", inSyncSince: "2026-12-01T03:12:41.250Z", now: SAME_DAY })).toBe(
      "tripped on unknown position BNBUSDT -26.04; in sync since 03:12:41 UTC",
    );
  });

  it("says the date of a time on another day than the reader's, and the year of another year", () => {
    expect(haltCauseText({ reason: "size drift AAPL", inSyncSince: "2026-08-10T10:00:00.000Z", now: SAME_DAY })).toBe(
      "tripped on size drift AAPL; in sync since Aug 10 10:00:00 UTC",
    );
    expect(haltCauseText({ reason: "size drift AAPL", inSyncSince: "2025-12-31T23:59:00.000Z", now: SAME_DAY })).toBe(
      "tripped on size drift AAPL; in sync since Dec 31 2025 23:59:00 UTC",
    );
    expect(haltCauseText({ ...hand, inSyncSince: null, now: Date.parse("2026-12-03T08:00:00Z") })).toBe(
      "halted by hand by operator:ana at Dec 1 05:31:07 UTC: venue maintenance at 06:00",
    );
  });

  it("names a missing reason rather than showing nothing", () => {
    expect(haltCauseText({ reason: null, inSyncSince: null })).toBe("no reason recorded");
    expect(haltCauseText({ reason: "  ", inSyncSince: "2026-12-01T00:05:00Z", now: SAME_DAY })).toBe(
      "tripped on no reason recorded; in sync since 00:05:00 UTC",
    );
  });

  it("keeps the cause-gone wording when the time does not parse", () => {
    expect(haltCauseText({ reason: "size drift NVDA", inSyncSince: "not a time" })).toBe("tripped on size drift NVDA; in sync since then");
  });
});

describe("haltCauseText for a halt made by hand", () => {
  it("says who halted it by hand, spelled as every screen spells an operator (operator:ana), when in UTC, and their own words", () => {
    expect(haltCauseText({ ...hand, inSyncSince: null })).toBe("halted by hand by operator:ana at 05:31:07 UTC: venue maintenance at 06:00");
  });

  it("never says the cause is gone: a hand-made halt has no cause that comes back in sync", () => {
    const text = haltCauseText({ ...hand, inSyncSince: "2026-12-01T05:40:00.000Z" });
    expect(text).toBe("halted by hand by operator:ana at 05:31:07 UTC: venue maintenance at 06:00");
    expect(text).not.toMatch(/in sync|tripped on/);
  });

  it("names no one to a reader who may not see names, and still says it was by hand", () => {
    expect(haltCauseText({ ...hand, changedBy: "operator", inSyncSince: null })).toBe("halted by hand by operator at 05:31:07 UTC: venue maintenance at 06:00");
  });

  it("keeps the words of a reason written without the console's prefix, and names a missing one", () => {
    expect(haltCauseText({ ...hand, reason: "stop it", inSyncSince: null })).toBe("halted by hand by operator:ana at 05:31:07 UTC: stop it");
    expect(haltCauseText({ ...hand, reason: null, changedAt: "not a time", inSyncSince: null })).toBe("halted by hand by operator:ana: no reason recorded");
  });

  it("reads a trip by the bot as before, whatever changed_at says", () => {
    expect(haltCauseText({ reason: "size drift NVDA", inSyncSince: null, changedBy: "bot", changedAt: hand.changedAt })).toBe("size drift NVDA");
  });
});

describe("haltCauseText for a trip on an order nobody was sure of", () => {
  const reason = "order alpha-33e2 unknown: lookup failed: venue timed out";
  const settled = (over: Partial<CauseOrderSettled> = {}): CauseOrderSettled => ({
    clientOrderId: "alpha-33e2",
    state: "filled",
    at: "2026-12-01T05:40:12.000Z",
    by: "operator:demo",
    how: "lookup",
    ...over,
  });

  it("reads as the recorded reason while the order is still not settled", () => {
    expect(haltCauseText({ reason, inSyncSince: null, ordersSettled: null, now: SAME_DAY })).toBe(reason);
  });

  it("says the order is settled at when, as what and by whom, as a drift's cause says 'in sync since'", () => {
    expect(haltCauseText({ reason, inSyncSince: null, ordersSettled: [settled()], now: SAME_DAY })).toBe(
      `tripped on ${reason}; settled at 05:40:12 UTC: filled (by operator:demo, on the exchange)`,
    );
    expect(haltCauseText({ reason, inSyncSince: null, ordersSettled: [settled({ how: "hand", state: "partially_filled" })], now: SAME_DAY })).toBe(
      `tripped on ${reason}; settled at 05:40:12 UTC: partially filled (by operator:demo)`,
    );
    expect(haltCauseText({ reason, inSyncSince: null, ordersSettled: [settled({ by: "bot" })], now: SAME_DAY })).toBe(
      `tripped on ${reason}; settled at 05:40:12 UTC: filled (by the bot's lookup)`,
    );
    // A row changed without an event: when, and as what, but nobody named.
    expect(haltCauseText({ reason, inSyncSince: null, ordersSettled: [settled({ by: null, how: "bot" })], now: SAME_DAY })).toBe(
      `tripped on ${reason}; settled at 05:40:12 UTC: filled`,
    );
  });

  it("names each order of a trip that names several, since the last of them settled", () => {
    const several = "2 order(s) unknown after startup recovery: a1-1, a1-2";
    expect(
      haltCauseText({
        reason: several,
        inSyncSince: null,
        ordersSettled: [settled({ clientOrderId: "a1-1", how: "hand" }), settled({ clientOrderId: "a1-2", state: "absent", at: "2026-12-01T05:41:00.000Z" })],
        now: SAME_DAY,
      }),
    ).toBe(`tripped on ${several}; settled at 05:41:00 UTC: a1-1 filled (by operator:demo), a1-2 absent (by operator:demo, on the exchange)`);
  });

  it("leaves a halt by hand as it reads", () => {
    expect(haltCauseText({ ...hand, inSyncSince: null, ordersSettled: [settled()] })).toBe(
      "halted by hand by operator:ana at 05:31:07 UTC: venue maintenance at 06:00",
    );
  });
});
