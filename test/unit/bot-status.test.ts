import { describe, expect, it } from "vitest";
import { botStatus, factsAreOld, type BotStatusInput } from "@/lib/breaker/bot-status";

const now = new Date("2026-08-10T15:31:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const base: BotStatusInput = {
  now,
  breaker: { halted: false },
  heartbeatAt: ago(1_000),
  lastReconciliation: { at: ago(5_000), outcome: "clean" },
  lastCompared: { at: ago(5_000), outcome: "clean" },
  heartbeatStaleMs: 60_000,
  reconciliationStaleMs: 120_000,
};

describe("botStatus", () => {
  it("is running only with a fresh heartbeat and a fresh, clean reconciliation", () => {
    expect(botStatus(base)).toMatchObject({ status: "running", reasons: [], heartbeatAgeMs: 1_000 });
  });

  it("is halted whenever the breaker is, however fresh the rest", () => {
    expect(botStatus({ ...base, breaker: { halted: true } }).status).toBe("halted");
  });

  it("is stale, not running, when the heartbeat stops", () => {
    const r = botStatus({ ...base, heartbeatAt: ago(61_000) });
    expect(r.status).toBe("stale");
    expect(r.reasons).toContain("heartbeat is stale");
  });

  it("is stale when the last reconciliation is old even if it was clean", () => {
    expect(botStatus({ ...base, lastReconciliation: { at: ago(121_000), outcome: "clean" } }).status).toBe("stale");
  });

  it("is unknown without a breaker row, a heartbeat or any reconciliation", () => {
    expect(botStatus({ ...base, breaker: null }).status).toBe("unknown");
    expect(botStatus({ ...base, heartbeatAt: null }).status).toBe("unknown");
    expect(botStatus({ ...base, lastReconciliation: null }).status).toBe("unknown");
  });

  it("keeps the word of the latest compared cycle while the last one was skipped or failed, as long as that compared cycle is fresh", () => {
    // A trading bot skips a cycle whenever a fill settles, and one failed read is a blip: the card
    // flickered UNKNOWN, and every symbol row grew a dated line, every few minutes (a try-out).
    const skipped = { at: ago(1_000), outcome: "skipped", ordersInFlight: 1 };
    expect(botStatus({ ...base, lastReconciliation: skipped, lastCompared: { at: ago(16_000), outcome: "clean" } })).toMatchObject({
      status: "running",
      reasons: [],
      alarms: [],
    });
    expect(
      botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "error", error: "502" }, lastCompared: { at: ago(119_000), outcome: "clean" } })
        .status,
    ).toBe("running");
    expect(botStatus({ ...base, lastReconciliation: skipped, lastCompared: { at: ago(16_000), outcome: "drift" } }).status).toBe("drift");
  });

  it("is unknown, with an alarm, once no cycle has compared the books within the reconciliation staleness limit", () => {
    const skipped = { at: ago(1_000), outcome: "skipped", ordersInFlight: 2 };
    const long = botStatus({ ...base, lastReconciliation: skipped, lastCompared: { at: ago(121_000), outcome: "clean" } });
    expect(long.status).toBe("unknown");
    expect(long.alarms).toEqual([
      "books not compared for 121 s: last reconciliation skipped: 2 orders in flight, so the books were not compared (the bot compares once they settle)",
    ]);
    expect(botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "error" }, lastCompared: null }).alarms).toEqual([
      "books never compared: last reconciliation failed, so the books were not compared",
    ]);
    // A compared cycle stamped in the future vouches for nothing either.
    const ahead = botStatus({ ...base, lastReconciliation: skipped, lastCompared: { at: ago(-60_000), outcome: "clean" } });
    expect(ahead.status).toBe("unknown");
    expect(ahead.alarms).toEqual([
      expect.stringMatching(/^last compared cycle is 60 s in the future \(bot clock ahead of the console's\): last reconciliation skipped/),
    ]);
  });

  it("says why the books were not compared, the orders in flight of a skipped cycle or the error of a failed one, apart from the reasons", () => {
    // A reason bullet grew a halted or drifting card at every skip, and a running card said nothing.
    const drift = { at: ago(10_000), outcome: "drift" };
    const skipped = botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "skipped", ordersInFlight: 2 }, lastCompared: drift });
    expect(skipped).toMatchObject({ status: "drift", reasons: [], notComparedWhy: "2 orders in flight" });
    const failed = botStatus({
      ...base,
      lastReconciliation: { at: ago(1_000), outcome: "error", error: "fetch positions failed: 502" },
      lastCompared: { at: ago(10_000), outcome: "clean" },
    });
    expect(failed).toMatchObject({ status: "running", reasons: [], notComparedWhy: "fetch positions failed: 502" });
    expect(
      botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "skipped", ordersInFlight: 0 }, lastCompared: drift }).notComparedWhy,
    ).toBeNull();
    expect(
      botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "clean" }, lastCompared: { at: ago(1_000), outcome: "clean" } }).notComparedWhy,
    ).toBeNull();
    // Past the limit the why is the alarm's, not a note beside it.
    const long = botStatus({
      ...base,
      lastReconciliation: { at: ago(1_000), outcome: "error", error: "502" },
      lastCompared: { at: ago(121_000), outcome: "clean" },
    });
    expect(long).toMatchObject({ status: "unknown", notComparedWhy: null });
  });

  it("shows drift when the last fresh reconciliation found one and the breaker is not halted", () => {
    expect(botStatus({ ...base, lastReconciliation: { at: ago(1_000), outcome: "drift" }, lastCompared: { at: ago(1_000), outcome: "drift" } }).status).toBe(
      "drift",
    );
  });

  it("distrusts a heartbeat from the future", () => {
    expect(botStatus({ ...base, heartbeatAt: new Date(now.getTime() + 3_600_000).toISOString() }).status).toBe("unknown");
  });

  describe("a bot clock that disagrees with the console's", () => {
    it("distrusts a heartbeat more than 10 s ahead, naming the clock; a second or two is tolerated", () => {
      expect(botStatus({ ...base, heartbeatAt: ago(-2_000) }).status).toBe("running");
      const r = botStatus({ ...base, heartbeatAt: ago(-30_000) });
      expect(r.status).toBe("unknown");
      expect(r.reasons).toEqual(["heartbeat is 30 s in the future: bot clock ahead of the console's, so its times cannot be trusted"]);
    });

    it("distrusts a reconciliation from the future", () => {
      const r = botStatus({ ...base, lastReconciliation: { at: ago(-600_000), outcome: "clean" } });
      expect(r.status).toBe("unknown");
      expect(r.reasons).toEqual(["last reconciliation is 600 s in the future: bot clock ahead of the console's"]);
    });

    it("names a clock behind when the heartbeat keeps moving but reads old", () => {
      const r = botStatus({ ...base, heartbeatAt: ago(300_000), heartbeatMovedAgoMs: 1_000 });
      expect(r.status).not.toBe("running");
      expect(r.reasons[0]).toBe("bot clock behind the console's: its heartbeat keeps moving but reads 300 s old, so its times cannot be trusted");
    });

    it("calls a bot that just stopped stale, not clock behind: its last beat was seen a moment after it was written", () => {
      // Beat 60.5 s ago by its clock, seen by the console 0.7 s later: just past the limit.
      const r = botStatus({ ...base, heartbeatAt: ago(60_500), heartbeatMovedAgoMs: 59_800 });
      expect(r.status).toBe("stale");
      expect(r.reasons).toContain("heartbeat is stale");
      // A clock behind by 20 s is still named, whatever the limit.
      expect(botStatus({ ...base, heartbeatAt: ago(61_000), heartbeatMovedAgoMs: 41_000 }).reasons[0]).toMatch(/^bot clock behind/);
      expect(botStatus({ ...base, heartbeatStaleMs: 12_000, heartbeatAt: ago(12_400), heartbeatMovedAgoMs: 11_600 }).status).toBe("stale");
      expect(botStatus({ ...base, heartbeatStaleMs: 12_000, heartbeatAt: ago(20_000), heartbeatMovedAgoMs: 1_000 }).reasons[0]).toMatch(/^bot clock behind/);
    });

    it("calls an old heartbeat that has not moved lately stale, as before", () => {
      expect(botStatus({ ...base, heartbeatAt: ago(300_000), heartbeatMovedAgoMs: 120_000 }).reasons).toContain("heartbeat is stale");
      expect(botStatus({ ...base, heartbeatAt: ago(300_000), heartbeatMovedAgoMs: null }).status).toBe("stale");
    });
  });

  it("treats an unreadable time as unknown, not fresh", () => {
    expect(botStatus({ ...base, heartbeatAt: "soon" }).status).toBe("unknown");
  });
});

describe("haltedAlso", () => {
  const halted = { ...base, breaker: { halted: true } };
  it("names a halted bot that stopped writing as stale too, and one whose times cannot be trusted as unknown", () => {
    expect(botStatus(halted).haltedAlso).toBeNull();
    expect(botStatus({ ...halted, heartbeatAt: ago(120_000) }).haltedAlso).toBe("stale");
    expect(botStatus({ ...halted, lastReconciliation: { at: ago(600_000), outcome: "clean" } }).haltedAlso).toBe("stale");
    expect(botStatus({ ...halted, heartbeatAt: ago(-60_000) }).haltedAlso).toBe("unknown");
    expect(botStatus({ ...halted, heartbeatAt: null }).haltedAlso).toBe("unknown");
    expect(botStatus({ ...halted, heartbeatAt: ago(300_000), heartbeatMovedAgoMs: 1_000 }).haltedAlso).toBe("unknown");
  });

  it("says nothing of a bot that is not halted: its own badge already is STALE or UNKNOWN", () => {
    expect(botStatus({ ...base, heartbeatAt: ago(120_000) }).haltedAlso).toBeNull();
  });

  it("does not call a halted bot's skipped or failed cycle unknown: its badge and its reasons say that", () => {
    expect(botStatus({ ...halted, lastReconciliation: { at: ago(5_000), outcome: "error", error: "exchange clock skew: stale nonce" } }).haltedAlso).toBeNull();
    expect(botStatus({ ...halted, lastReconciliation: { at: ago(5_000), outcome: "skipped", ordersInFlight: 1 } }).haltedAlso).toBeNull();
    // Until nothing has compared the books for longer than a cycle may be old.
    expect(
      botStatus({
        ...halted,
        lastReconciliation: { at: ago(5_000), outcome: "skipped", ordersInFlight: 1 },
        lastCompared: { at: ago(200_000), outcome: "drift" },
      }).haltedAlso,
    ).toBe("unknown");
  });
});

describe("alarms", () => {
  it("are the reasons that nothing vouches for the bot now, in their order", () => {
    const s = botStatus({ ...base, heartbeatAt: ago(120_000), lastReconciliation: { at: ago(600_000), outcome: "clean" } });
    expect(s.alarms).toEqual(["heartbeat is stale", "last reconciliation is stale"]);
    expect(botStatus({ ...base, heartbeatAt: null, breaker: null }).alarms).toEqual(["no breaker row for this bot", "no heartbeat yet"]);
    expect(botStatus({ ...base, heartbeatAt: ago(-60_000) }).alarms).toEqual([expect.stringMatching(/^heartbeat is 60 s in the future/)]);
  });

  it("leave out a skipped or failed cycle's note, whatever words its error holds", () => {
    // The overview matched words before: an exchange error that said "stale" or "clock" became an alarm.
    const failed = botStatus({
      ...base,
      lastReconciliation: { at: ago(5_000), outcome: "error", error: "exchange clock skew: stale nonce in the future" },
      lastCompared: { at: ago(20_000), outcome: "drift" },
    });
    expect(failed.notComparedWhy).toBe("exchange clock skew: stale nonce in the future");
    expect(failed.alarms).toEqual([]);
    expect(botStatus({ ...base, lastReconciliation: { at: ago(5_000), outcome: "skipped", ordersInFlight: 2 } }).alarms).toEqual([]);
    expect(botStatus(base).alarms).toEqual([]);
  });
});

describe("factsAreOld", () => {
  const halted = { ...base, breaker: { halted: true } };
  it("holds for STALE and UNKNOWN, and for a halted bot that is also either", () => {
    expect(factsAreOld(botStatus(base))).toBe(false);
    expect(factsAreOld(botStatus(halted))).toBe(false);
    expect(factsAreOld(botStatus({ ...base, heartbeatAt: ago(120_000) }))).toBe(true);
    expect(factsAreOld(botStatus({ ...halted, heartbeatAt: ago(120_000) }))).toBe(true);
    expect(factsAreOld(botStatus({ ...halted, heartbeatAt: ago(-60_000) }))).toBe(true);
  });
});
