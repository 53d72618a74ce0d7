import { describe, expect, it } from "vitest";
import { ORDER_STATES, SETTLED_STATES } from "@/lib/journal/contract";
import { ALWAYS_DOUBTFUL_STATES, classifyOrder, DOUBTFUL_AFTER_GRACE_STATES, doubtfulCutoff, doubtfulOrderSql } from "@/lib/journal/order-state";

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

  it("classifies every contract state, fresh and old, as the contract's table says", () => {
    const fresh = Object.fromEntries(ORDER_STATES.map((state) => [state, classifyOrder({ state, updatedAt: ago(0) }, grace)]));
    const old = Object.fromEntries(ORDER_STATES.map((state) => [state, classifyOrder({ state, updatedAt: ago(86_400_000) }, grace)]));
    expect(fresh).toEqual({
      created: "live",
      sent: "live",
      unknown: "doubtful",
      open: "live",
      partially_filled: "live",
      filled: "settled",
      canceled: "settled",
      rejected: "settled",
      absent: "settled",
    });
    expect(old).toEqual({ ...fresh, created: "doubtful", sent: "doubtful" });
  });
});

describe("the doubtful rule's SQL form", () => {
  it("the doubtful states never overlap the settled ones, and every state is in at most one list", () => {
    const lists = [SETTLED_STATES, ALWAYS_DOUBTFUL_STATES, DOUBTFUL_AFTER_GRACE_STATES].flat();
    expect(new Set(lists).size).toBe(lists.length);
  });

  it("the cutoff is the instant the grace period began, as journal text", () => {
    expect(doubtfulCutoff({ now, graceMs: 30_000 })).toBe("2026-08-10T15:30:30.000Z");
  });

  it("names the caller's columns and binds the cutoff through the caller's one placeholder", () => {
    const text = doubtfulOrderSql({ state: "o.state", updatedAt: "o.updated_at", cutoffParam: ":cutoff" });
    expect(text).toBe(
      "o.state NOT IN ('filled', 'canceled', 'rejected', 'absent') AND (o.state IN ('unknown') OR (o.state IN ('created', 'sent') AND (o.updated_at < :cutoff OR o.updated_at NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z')))",
    );
  });
});
