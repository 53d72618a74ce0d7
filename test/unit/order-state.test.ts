import { describe, expect, it } from "vitest";
import { ORDER_STATES } from "@/lib/journal/contract";
import { classifyOrder } from "@/lib/journal/order-state";

const now = new Date("2026-08-10T15:31:00.000Z");
const grace = { now, graceMs: 30_000 };
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe("classifyOrder", () => {
  it.each(["filled", "canceled", "rejected", "absent"] as const)("%s is settled however old", (state) => {
    expect(classifyOrder({ state, updatedAt: ago(86_400_000) }, grace)).toBe("settled");
  });

  it("unknown is doubtful even a moment after it was written", () => {
    expect(classifyOrder({ state: "unknown", updatedAt: ago(0) }, grace)).toBe("doubtful");
  });

  it.each(["created", "sent"] as const)("%s is live within the grace period and doubtful after it", (state) => {
    expect(classifyOrder({ state, updatedAt: ago(29_999) }, grace)).toBe("live");
    expect(classifyOrder({ state, updatedAt: ago(30_001) }, grace)).toBe("doubtful");
  });

  it("the grace period is a setting", () => {
    expect(classifyOrder({ state: "sent", updatedAt: ago(10_000) }, { now, graceMs: 5_000 })).toBe("doubtful");
  });

  it("an unreadable timestamp is doubtful, not fresh", () => {
    expect(classifyOrder({ state: "created", updatedAt: "yesterday-ish" }, grace)).toBe("doubtful");
  });

  it.each(["open", "partially_filled"] as const)("%s stays live however old", (state) => {
    expect(classifyOrder({ state, updatedAt: ago(86_400_000) }, grace)).toBe("live");
  });

  it("classifies every contract state", () => {
    for (const state of ORDER_STATES) expect(["settled", "doubtful", "live"]).toContain(classifyOrder({ state, updatedAt: ago(0) }, grace));
  });
});
