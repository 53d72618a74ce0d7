import { describe, expect, it } from "vitest";
import { haltCauseText } from "@/lib/breaker/halt-cause";

describe("haltCauseText", () => {
  it("shows the recorded reason as current while its cause may still be there", () => {
    expect(haltCauseText({ reason: "unknown position BNBUSDT -26.04", inSyncSince: null })).toBe("unknown position BNBUSDT -26.04");
  });

  it("says the cause is gone, and since when in UTC, once the symbols are back in sync", () => {
    expect(haltCauseText({ reason: "unknown position BNBUSDT -26.04", inSyncSince: "2026-12-01T03:12:41.250Z" })).toBe(
      "tripped on unknown position BNBUSDT -26.04; in sync since 03:12 UTC",
    );
  });

  it("names a missing reason rather than showing nothing", () => {
    expect(haltCauseText({ reason: null, inSyncSince: null })).toBe("no reason recorded");
    expect(haltCauseText({ reason: "  ", inSyncSince: "2026-12-01T00:05:00Z" })).toBe("tripped on no reason recorded; in sync since 00:05 UTC");
  });

  it("keeps the cause-gone wording when the time does not parse", () => {
    expect(haltCauseText({ reason: "size drift NVDA", inSyncSince: "not a time" })).toBe("tripped on size drift NVDA; in sync since then");
  });
});

describe("haltCauseText for a halt made by hand", () => {
  const hand = { reason: "halted by hand: venue maintenance at 06:00", changedBy: "operator:ana", changedAt: "2026-12-01T05:31:07.000Z" };

  it("says who halted it by hand, when in UTC, and their own words", () => {
    expect(haltCauseText({ ...hand, inSyncSince: null })).toBe("halted by hand by ana at 05:31 UTC: venue maintenance at 06:00");
  });

  it("never says the cause is gone: a hand-made halt has no cause that comes back in sync", () => {
    const text = haltCauseText({ ...hand, inSyncSince: "2026-12-01T05:40:00.000Z" });
    expect(text).toBe("halted by hand by ana at 05:31 UTC: venue maintenance at 06:00");
    expect(text).not.toMatch(/in sync|tripped on/);
  });

  it("names no one to a reader who may not see names, and still says it was by hand", () => {
    expect(haltCauseText({ ...hand, changedBy: "operator", inSyncSince: null })).toBe("halted by hand by an operator at 05:31 UTC: venue maintenance at 06:00");
  });

  it("keeps the words of a reason written without the console's prefix, and names a missing one", () => {
    expect(haltCauseText({ ...hand, reason: "stop it", inSyncSince: null })).toBe("halted by hand by ana at 05:31 UTC: stop it");
    expect(haltCauseText({ ...hand, reason: null, changedAt: "not a time", inSyncSince: null })).toBe("halted by hand by ana: no reason recorded");
  });

  it("reads a trip by the bot as before, whatever changed_at says", () => {
    expect(haltCauseText({ reason: "size drift NVDA", inSyncSince: null, changedBy: "bot", changedAt: hand.changedAt })).toBe("size drift NVDA");
  });
});
