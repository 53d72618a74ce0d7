import { afterEach, describe, expect, it } from "vitest";
import { parseIncidentQuery } from "@/lib/url-state/incidents";
import { getBreakerBoard, NO_BOTS_ROW, type BreakerBotView, type BreakerClearView, type BreakerTripView } from "@/lib/queries/breakers";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { botOnSim } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";
import { OPERATOR_REASON, writeIncidentScenario, type IncidentScenario } from "../helpers/incident-journal";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

async function scenario() {
  const s = await writeIncidentScenario();
  const c = consoleDb(s.file);
  cleanup.push(c.close, s.close);
  return { s, db: c.db };
}

const MIN = 60_000;
const STALE_LIMITS = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000 };
const later = (s: IncidentScenario, ms: number) => new Date(Date.parse(s.botA.endAt) + ms);

describe("getBreakerBoard", () => {
  it("lists each bot's breaker and its trips and clears newest first, with cause, actor and duration", async () => {
    const { s, db } = await scenario();
    const board = await getBreakerBoard({ db, now: later(s, 5 * MIN), ...STALE_LIMITS });
    expect(board.bots.map((b) => b.botId)).toEqual(["bot-a", "bot-b"]);

    const a = board.bots[0]!;
    expect(a.breaker).toMatchObject({ halted: false, changedBy: "operator:ana", reason: OPERATOR_REASON });
    expect(a.events.map((e) => e.kind)).toEqual(["clear", "trip"]);
    const [clear, trip] = a.events as [BreakerClearView, BreakerTripView];
    expect(clear).toMatchObject({
      actor: "operator:ana",
      reason: OPERATOR_REASON,
      tripAt: s.botA.tripAt,
      tripId: s.botA.tripId,
      storyHref: `/incidents/${s.botA.tripId}`,
      durationMs: 2 * MIN,
    });
    expect(trip).toMatchObject({
      actor: "bot",
      reason: "unknown position ETHUSDT +3",
      status: "cleared",
      clearedAt: s.botA.clearAt,
      clearedBy: "operator:ana",
      durationMs: 2 * MIN,
    });
    expect(trip.cause).toMatchObject({
      reconciliationId: s.botA.reconciliationId,
      at: s.botA.tripAt,
      outcome: "drift",
      drifts: [{ symbol: "ETHUSDT", ours: 0, theirs: 3, drift: "unknown_position" }],
    });
    expect(a.olderBefore).toBeNull();
  });

  it("counts an open halt up to now, with no cause when no cycle caused it", async () => {
    const { s, db } = await scenario();
    const now = later(s, 5 * MIN);
    const b = (await getBreakerBoard({ db, now, ...STALE_LIMITS })).bots[1]!;
    expect(b.breaker).toMatchObject({ halted: true, changedBy: "bot" });
    expect(b.events).toHaveLength(1);
    expect(b.events[0]).toMatchObject({
      kind: "trip",
      status: "halted",
      clearedAt: null,
      cause: null,
      durationMs: now.getTime() - Date.parse(s.botB.tripAt),
      reason: expect.stringMatching(new RegExp(`^order ${s.botB.clientOrderId} unknown: send failed: .+; then lookup failed`)),
    });
  });

  it("links every trip to its story, and to the incident review from 15 min before it to 15 min after its clear, or to now while halted", async () => {
    const { s, db } = await scenario();
    const now = later(s, 60 * MIN);
    const [a, b] = (await getBreakerBoard({ db, now, ...STALE_LIMITS })).bots;
    const tripA = a!.events.find((e) => e.kind === "trip") as BreakerTripView;
    expect(tripA.incident).toMatchObject({ from: "2026-08-10T15:15:00.000Z", to: "2026-08-10T15:48:00.000Z" });
    expect(tripA.incident.href).toMatch(/#breaker-\d+$/);
    // "Review this incident" opens the trip's story, which links to the window itself.
    expect(tripA.incident.storyHref).toBe(`/incidents/${s.botA.tripId}`);
    expect(tripA.cause!.href).toMatch(new RegExp(`#reconciliation-${s.botA.reconciliationId}$`));
    const tripB = b!.events[0] as BreakerTripView;
    expect(Date.parse(tripB.incident.from)).toBe(Date.parse("2026-08-10T15:16:00.000Z"));
    expect(Date.parse(tripB.incident.to)).toBe(Math.ceil(now.getTime() / MIN) * MIN);

    // The link is one the incident page accepts, and its window holds the trip, its cause and its clear.
    const query = parseIncidentQuery(new URLSearchParams(tripA.incident.href.split("?")[1]!.split("#")[0]));
    if (!query.ok) throw new Error(query.message);
    expect(query.bot).toBe("bot-a");
    const timeline = getIncidentTimeline({ db, window: { from: query.from!, to: query.to! }, filters: query });
    const ids = timeline.events.map((e) => e.id);
    expect(ids).toContain(`breaker-${s.botA.tripId}`);
    expect(ids).toContain(`breaker-${s.botA.clearId}`);
    expect(ids).toContain(`reconciliation-${s.botA.reconciliationId}`);
    expect(timeline.events.every((e) => e.botId === "bot-a")).toBe(true);
  });

  it("pages a long history newest first, a page at a time, with durations right across page edges", async () => {
    const bot = botOnSim();
    cleanup.push(bot.close);
    const clear = bot.db.prepare(
      `UPDATE breakers SET halted = 0, reason = 'ok', changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`,
    );
    const clearEvent = bot.db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor) VALUES ('bot-a', ?, 'clear', 'ok', 'operator:ana')`);
    for (let i = 0; i < 25; i++) {
      bot.writer.trip(`trip ${i}`);
      bot.sim.advance(30_000 + i * 1_000);
      const at = bot.sim.now().toISOString();
      bot.db.transaction(() => (clear.run(at), clearEvent.run(at))).immediate();
      bot.sim.advance(60_000);
    }
    const c = consoleDb(bot.file);
    cleanup.push(c.close);
    const now = bot.sim.now();

    const pages: BreakerBotView[] = [];
    let before: number | null = null;
    do {
      const page: BreakerBotView = (await getBreakerBoard({ db: c.db, now, ...STALE_LIMITS, bot: "bot-a", before })).bots[0]!;
      pages.push(page);
      before = page.olderBefore;
    } while (before !== null);
    expect(pages.map((p) => p.events.length)).toEqual([20, 20, 10]);
    const all = pages.flatMap((p) => p.events);
    expect(new Set(all.map((e) => e.id)).size).toBe(50);
    const times = all.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    // Every trip's duration is its own gap to its clear, whichever page that clear is on.
    const trips = all.filter((e): e is BreakerTripView => e.kind === "trip");
    expect(trips.map((t) => t.durationMs)).toEqual(Array.from({ length: 25 }, (_, i) => 30_000 + (24 - i) * 1_000));
    expect(trips.every((t) => t.status === "cleared")).toBe(true);
  });

  it("says a halt ended without its clear event when a writer cleared the breaker row alone", async () => {
    const bot = botOnSim();
    cleanup.push(bot.close);
    bot.writer.trip("manual test");
    bot.sim.advance(90_000);
    bot.db.prepare(`UPDATE breakers SET halted = 0, changed_at = ?, changed_by = 'operator:bob', version = version + 1`).run(bot.sim.now().toISOString());
    const c = consoleDb(bot.file);
    cleanup.push(c.close);
    const trip = (await getBreakerBoard({ db: c.db, now: bot.sim.now(), ...STALE_LIMITS })).bots[0]!.events[0] as BreakerTripView;
    expect(trip).toMatchObject({ status: "unrecorded", durationMs: null, clearedAt: null });
    expect(Date.parse(trip.incident.to)).toBe(Date.parse("2026-08-10T15:47:00.000Z"));
  });

  it("says of each bot whether anything vouches for it now, as its card does: a breaker row is what a bot last wrote", async () => {
    const bot = botOnSim();
    cleanup.push(bot.close);
    bot.writer.heartbeat();
    await bot.writer.reconcile();
    // A bot with a breaker row and no row in bots: nothing of it was ever heard.
    bot.db
      .prepare(`INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version) VALUES ('ghost', 0, NULL, ?, 'bot', 1)`)
      .run(bot.sim.now().toISOString());
    const c = consoleDb(bot.file);
    cleanup.push(c.close);
    const board = (now: Date) => getBreakerBoard({ db: c.db, now, ...STALE_LIMITS }).then((b) => new Map(b.bots.map((x) => [x.botId, x])));

    const fresh = await board(new Date(bot.sim.now().getTime() + 1_000));
    expect(fresh.get("bot-a")).toMatchObject({ breaker: { halted: false }, vouch: null });
    expect(fresh.get("ghost")).toMatchObject({ breaker: { halted: false }, vouch: { now: "unknown", alarms: [NO_BOTS_ROW] } });

    // The bot stopped writing: its breaker still reads "not halted", and the board says nothing vouches for that.
    const stopped = await board(new Date(bot.sim.now().getTime() + 3 * MIN));
    expect(stopped.get("bot-a")).toMatchObject({
      breaker: { halted: false },
      vouch: { now: "stale", alarms: ["heartbeat is stale", "last reconciliation is stale"] },
    });

    // Halted and stopped: HALTED, and stale as well.
    bot.writer.trip("manual test");
    const haltedStopped = await board(new Date(bot.sim.now().getTime() + 3 * MIN));
    expect(haltedStopped.get("bot-a")).toMatchObject({ breaker: { halted: true }, vouch: { now: "stale" } });
    expect((await board(new Date(bot.sim.now().getTime() + 1_000))).get("bot-a")).toMatchObject({ breaker: { halted: true }, vouch: null });
  });

  it("shows one bot when asked, none for a name the journal does not know, and a bot that never tripped with no events", async () => {
    const { db, s } = await scenario();
    const now = later(s, MIN);
    expect((await getBreakerBoard({ db, now, ...STALE_LIMITS, bot: "bot-b" })).bots.map((b) => b.botId)).toEqual(["bot-b"]);
    expect((await getBreakerBoard({ db, now, ...STALE_LIMITS, bot: "nobody" })).bots).toEqual([]);
    const quiet = botOnSim({ botId: "quiet", file: s.file });
    cleanup.push(quiet.close);
    expect((await getBreakerBoard({ db, now, ...STALE_LIMITS, bot: "quiet" })).bots[0]).toMatchObject({
      botId: "quiet",
      breaker: { halted: false },
      events: [],
      olderBefore: null,
    });
  });
});
