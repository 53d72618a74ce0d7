import { describe, expect, it } from "vitest";
import { HIDDEN_INTERVAL_MS, LIVE_INTERVAL_MS, pollInterval } from "@/lib/query-options/poll";

describe("pollInterval: how often a live query asks", () => {
  it("asks every second in a tab in front", () => {
    expect(pollInterval(LIVE_INTERVAL_MS, false)).toBe(1_000);
  });

  it("keeps asking in a hidden tab, every 5 s", () => {
    expect(HIDDEN_INTERVAL_MS).toBe(5_000);
    expect(pollInterval(LIVE_INTERVAL_MS, true)).toBe(5_000);
  });

  it("never asks a slower poll more often because the tab is hidden", () => {
    expect(pollInterval(10_000, true)).toBe(10_000);
    expect(pollInterval(2_000, false)).toBe(2_000);
  });
});
