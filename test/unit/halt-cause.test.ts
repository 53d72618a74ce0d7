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
