/**
 * Incidents told from real journals: the incident scenario (a drift the bot tripped on, cleared by
 * an operator; a lost order whose halt stays open) with operator actions through the real guard,
 * and the demo's named scenarios. The durations are computed from what the journal holds.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { gapWords } from "@/lib/incidents/collapse";
import { getFoldedIncidentTimeline } from "@/lib/queries/incidents";
import { formatUtc } from "@/lib/text/format";
import { CAUSE_ORDER, prunedIncidentJournal } from "../helpers/pruned-incident";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeEndedDriftSpec } from "@/lib/actions/acknowledge-drift";
import { resolveManuallySpec } from "@/lib/actions/resolve-order";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { incidentPostmortem, postmortemFilename } from "@/lib/incidents/postmortem";
import { sameEventKey } from "@/lib/incidents/collapse";
import { AUDIT_SQL, CLEAR_SQL, FIRST_RESPONSE_SQL, TRIP_SQL, getIncidentStory, listIncidents, listSql } from "@/lib/queries/incident-story";
import { loadIncidentStory } from "@/lib/queries/screens";
import { queryOf } from "@/lib/db/query";
import { SCENARIOS } from "@/tools/demo/scenarios";
import { act, ana, ben, consoleWriter } from "../helpers/actions";
import { consoleDb } from "../helpers/console-db";
import { ACK_NOTE, CLEAR_NOTE, LONG_STORY, OPERATOR_REASON, RESOLVE_NOTE, writeIncidentScenario } from "../helpers/incident-journal";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { botOnSim } from "../helpers/bot";
import { env } from "@/lib/env";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const later = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000);

/** The incident scenario, then on bot-b: ana resolves the lost order by hand 90 s after the trip, ben clears the halt 200 s after it. */
async function scenarioWithActions() {
  const s = await writeIncidentScenario();
  cleanup.push(s.close);
  const w = consoleWriter(s.file);
  cleanup.push(() => w.close());
  const order = w
    .prepare(`SELECT client_order_id AS clientOrderId, version, state, filled_qty AS filledQty FROM orders WHERE client_order_id = ?`)
    .get(s.botB.clientOrderId) as {
    clientOrderId: string;
    version: number;
    state: string;
    filledQty: number;
  };
  const resolved = await act(
    w,
    resolveManuallySpec({ graceMs: 30_000 }),
    ana,
    {
      clientOrderId: order.clientOrderId,
      version: String(order.version),
      seenState: order.state,
      seenFilledQty: String(order.filledQty),
      status: "filled",
      note: "venue order screen: filled 2 at 3,010\nticket OPS-41",
    },
    later(s.botB.tripAt, 90),
  );
  expect(resolved.ok).toBe(true);
  const clearAt = later(s.botB.tripAt, 200).toISOString();
  w.transaction(() => {
    w.prepare(`UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = 'operator:ben', version = version + 1 WHERE bot_id = 'bot-b'`).run(
      clearAt,
    );
    w.prepare(
      `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-b', ?, 'clear', 'order settled by hand, resuming', 'operator:ben', NULL)`,
    ).run(clearAt);
  }).immediate();
  const c = consoleDb(s.file);
  cleanup.push(c.close);
  return { s, db: c.db };
}

describe("one incident, told from the journal", () => {
  it("a drift the bot tripped on: the drifting line as cause, the operator's clear as first action, 2 min to clear, the clear's reason in full", async () => {
    const { s, db } = await scenarioWithActions();
    const view = getIncidentStory({ db, id: s.botA.tripId, now: later(s.botA.endAt, 600) })!;
    const { story } = view;
    expect(story).toMatchObject({ botId: "bot-a", status: "cleared", startedAt: s.botA.tripAt, clearedAt: s.botA.clearAt, symbol: "ETHUSDT" });
    expect(story.cause).toMatchObject({ reason: "unknown position ETHUSDT +3", byHand: false, reconciliationId: s.botA.reconciliationId });
    expect(story.cause.drift).toMatchObject({ symbol: "ETHUSDT", ours: 0, theirs: 3, drift: "unknown_position" });
    expect(story.order).toBeNull();
    expect(story.durations).toEqual({ toFirstActionMs: 120_000, toSettleMs: null, toClearMs: 120_000 });
    expect(story.steps).toEqual([expect.objectContaining({ actor: "operator:ana", what: "cleared the halt", note: OPERATOR_REASON, mark: "clear" })]);
    // The chart is of the drifting symbol over the incident.
    expect(view.chart?.points.length).toBeGreaterThan(0);
    expect(view.chart?.markers.map((m) => m.kind)).toEqual(["trip", "clear"]);
    // Its cycles were 15 s apart, then none for the 2 min to the clear: said, not a quiet stretch.
    expect(view.silences).toEqual([{ botId: "bot-a", from: s.botA.tripAt, to: null, ms: 120_000, cycleMs: 15_000 }]);
    expect(incidentPostmortem(view)).toContain(
      `**bot-a wrote no reconciliation for 2 min 0 s**, from ${s.botA.tripAt.slice(11, 19)} to the clear (cycles 15 s apart)`,
    );
  });

  it("a lost order: the order its reason names, settled by hand after 90 s (the first action), cleared after 200 s, both notes in full", async () => {
    const { s, db } = await scenarioWithActions();
    const { story, timeline } = getIncidentStory({ db, id: s.botB.tripId, now: later(s.botB.tripAt, 900) })!;
    expect(story.order).toMatchObject({
      clientOrderId: s.botB.clientOrderId,
      side: "buy",
      qty: 2,
      symbol: "ETHUSDT",
      state: "filled",
      settledBy: "operator:ana",
      settledAs: "filled",
    });
    expect(story.durations).toEqual({ toFirstActionMs: 90_000, toSettleMs: 90_000, toClearMs: 200_000 });
    expect(story.steps.map((x) => [x.actor, x.what, x.note])).toEqual([
      ["operator:ana", `resolved order ${s.botB.clientOrderId} by hand as filled`, "venue order screen: filled 2 at 3,010\nticket OPS-41"],
      ["operator:ben", "cleared the halt", "order settled by hand, resuming"],
    ]);
    // No two rows say the same thing; every event is a row, in a row's count, or counted as routine.
    expect(new Set(timeline.rows.map((r) => sameEventKey(r.event))).size).toBe(timeline.rows.length);
    expect(timeline.rows.reduce((n, r) => n + r.count + r.audit.length, 0) + timeline.routineTotal).toBe(timeline.events);
    expect(timeline.rows.some((r) => r.event.source === "breaker" && r.event.kind === "trip")).toBe(true);
    // The hand resolution is told once: the order's event says what it was settled as, its audit entry under it.
    const resolved = timeline.rows.filter((r) => r.event.operator && r.event.actor === "operator:ana");
    expect(resolved.map((r) => [r.event.source, r.audit.map((a) => a.kind)])).toEqual([["order", ["resolve_order_manual"]]]);
    expect(resolved[0]!.event.summary).toMatch(/^operator:ana resolved \w+ [\d.]+ \S+ by hand as filled/);
  });

  it("an acknowledgement of a drift that ended is the first action, with its note", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const w = consoleWriter(s.file);
    cleanup.push(() => w.close());
    // Re-halt bot-a as the bot would, so the ended drift may be acknowledged; then the console's ack 30 s after the trip.
    const trip = s.botA.tripAt;
    w.prepare(`UPDATE breakers SET halted = 1, changed_at = ? WHERE bot_id = 'bot-a'`).run(trip);
    w.prepare(`DELETE FROM breaker_events WHERE id = ?`).run(s.botA.clearId);
    const r = await act(
      w,
      acknowledgeEndedDriftSpec({ ackTtlMs: 3_600_000 }),
      ben,
      { botId: "bot-a", symbol: "ETHUSDT", reconciliationId: String(s.botA.reconciliationId), note: "manual test by the desk, closed by the bot" },
      later(trip, 30),
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const { story } = getIncidentStory({ db: c.db, id: s.botA.tripId, now: later(trip, 60) })!;
    expect(story.status).toBe("open");
    expect(story.durations).toEqual({ toFirstActionMs: 30_000, toSettleMs: null, toClearMs: null });
    expect(story.steps).toEqual([
      expect.objectContaining({
        actor: "operator:ben",
        what: "acknowledged the drift on ETHUSDT",
        note: "manual test by the desk, closed by the bot",
        mark: "acknowledge",
      }),
    ]);
  });

  it("a halt made by hand (Halt now): the operator and their reason as the cause, no drifting line, listed as by hand", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const w = consoleWriter(s.file);
    cleanup.push(() => w.close());
    const at = later(s.botA.endAt, 60).toISOString();
    // As docs/journal.md has the console write it: the breakers row and a trip whose reconciliation_id is NULL.
    const id = w
      .transaction(() => {
        w.prepare(`UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`).run(
          "venue maintenance, stop new entries",
          at,
        );
        return Number(
          w
            .prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'trip', ?, 'operator:ana', NULL)`)
            .run(at, "venue maintenance, stop new entries").lastInsertRowid,
        );
      })
      .immediate();
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const { story, chart } = getIncidentStory({ db: c.db, id, now: later(at, 30) })!;
    expect(story).toMatchObject({ status: "open", symbol: null, order: null });
    expect(story.cause).toEqual({ reason: "venue maintenance, stop new entries", haltedBy: "operator:ana", byHand: true, reconciliationId: null, drift: null });
    // Written without the console, the halt has no audit entry: its trip tells who halted it, and it is their first action.
    expect(story.firstAction).toEqual({ at, actor: "operator:ana", what: "halted bot-a by hand" });
    expect(story.steps).toEqual([
      expect.objectContaining({ actor: "operator:ana", what: "halted bot-a by hand", note: "venue maintenance, stop new entries", mark: "halt" }),
    ]);
    expect(chart).toBeNull();
    expect(listIncidents({ db: c.db, bot: "bot-a", now: later(at, 30) }).items[0]).toMatchObject({
      id,
      haltedBy: "operator:ana",
      status: "open",
      toFirstActionMs: 0,
    });
  });

  it("a Halt now through the console is its operator's first action: listed under who did what with its reason, in the page's story, the post-mortem and the list", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const w = consoleWriter(s.file);
    cleanup.push(() => w.close());
    const at = later(s.botA.endAt, 60);
    const version = w.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;
    const halted = await act(w, haltBotSpec(), ana, { botId: "bot-a", reason: "venue maintenance, stop new entries", breakerVersion: String(version) }, at);
    expect(halted.ok).toBe(true);
    const id = w.prepare(`SELECT max(id) FROM breaker_events WHERE bot_id = 'bot-a' AND kind = 'trip'`).pluck().get() as number;
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const now = later(at.toISOString(), 30);
    const view = getIncidentStory({ db: c.db, id, now })!;
    expect(view.story.firstAction).toEqual({ at: at.toISOString(), actor: "operator:ana", what: "halted bot-a by hand" });
    expect(view.story.durations.toFirstActionMs).toBe(0);
    expect(view.story.steps.map((x) => [x.actor, x.what, x.note, x.mark])).toEqual([
      ["operator:ana", "halted bot-a by hand", "venue maintenance, stop new entries", "halt"],
    ]);
    const md = incidentPostmortem(view);
    expect(md).toContain("- **Time to first operator action:** 0 s (operator:ana halted bot-a by hand)");
    expect(md).toContain(`1. ${at.toISOString().slice(11, 19)} UTC: operator:ana halted bot-a by hand\n   > venue maintenance, stop new entries`);
    expect(md).not.toContain("Nobody has acted yet");
    expect(listIncidents({ db: c.db, bot: "bot-a", now }).items[0]).toMatchObject({ id, toFirstActionMs: 0 });
  });

  it("tells a Halt now and its clear through the console once each in the timeline, the audit entry on the breaker event's line; who did what stays two actions", async () => {
    const bot = botOnSim();
    cleanup.push(bot.close);
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    const w = consoleWriter(bot.file);
    cleanup.push(() => w.close());
    const version = w.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;
    const haltAt = bot.sim.now();
    const input = { botId: "bot-a", reason: "venue maintenance, stop new entries", breakerVersion: String(version) };
    expect((await act(w, haltBotSpec(), ana, input, haltAt)).ok).toBe(true);
    // The bot's next cycle is clean and its heartbeat fresh: ben clears it 30 s later.
    bot.sim.advance(30_000);
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    bot.writer.heartbeat();
    const clear = clearHaltSpec({ heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 });
    const clearInput = { botId: "bot-a", breakerVersion: String(version + 1), reason: "maintenance over", confirmBotId: "bot-a" };
    expect(await act(w, clear, ben, clearInput, bot.sim.now())).toMatchObject({ ok: true, data: { cleared: true } });
    const id = w.prepare(`SELECT max(id) FROM breaker_events WHERE bot_id = 'bot-a' AND kind = 'trip'`).pluck().get() as number;
    const c = consoleDb(bot.file);
    cleanup.push(c.close);
    const now = later(bot.sim.now().toISOString(), 60);

    const view = getIncidentStory({ db: c.db, id, now })!;
    const { timeline, story } = view;
    const lines = timeline.rows.map((r) => [r.event.source, r.event.kind, r.audit.map((a) => a.summary)]);
    expect(lines.filter(([source]) => source !== "reconciliation")).toEqual([
      ["breaker", "trip", ["operator:ana: Halt now on bot-a: applied"]],
      ["breaker", "clear", ["operator:ben: Clear a halt on bot-a: applied"]],
    ]);
    // Nothing is lost: the events are still counted, each once, and their ids are still anchors of the page.
    expect(timeline.rows.reduce((n, r) => n + r.count + r.audit.length, 0) + timeline.routineTotal).toBe(timeline.events);
    // Who did what, and the first action, count each action once, as before.
    expect(story.steps.map((x) => [x.actor, x.what])).toEqual([
      ["operator:ana", "halted bot-a by hand"],
      ["operator:ben", "cleared the halt"],
    ]);
    expect(story.durations).toEqual({ toFirstActionMs: 0, toSettleMs: null, toClearMs: 30_000 });
    // The post-mortem says what the page says.
    const md = incidentPostmortem(view);
    expect(md).toContain(
      `- ${haltAt.toISOString().slice(11, 19)} BREAKER TRIPPED by operator:ana: halted by hand: venue maintenance, stop new entries\n  - audit log: operator:ana: Halt now on bot-a: applied\n`,
    );
    expect(md).not.toMatch(/^- \S+ operator:(ana|ben): /m);

    // A reader who may not see names reads the same lines, by role.
    const masked = (await loadIncidentStory({ q: queryOf(c.db), config: env(), now, names: false, id }))!;
    expect(masked.timeline.rows.filter((r) => r.event.source !== "reconciliation").map((r) => [r.event.summary, r.audit.map((a) => a.summary)])).toEqual([
      ["BREAKER TRIPPED by operator: halted by hand: venue maintenance, stop new entries", ["operator: Halt now on bot-a: applied"]],
      ["breaker cleared by operator: maintenance over", ["operator: Clear a halt on bot-a: applied"]],
    ]);
  });

  it("charts a halt open for months around its trip (what led to it and the hour after), and a short one whole", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    // bot-a's drift trip, never cleared: its cycles led to it, and it stays open.
    const w = consoleWriter(s.file);
    cleanup.push(() => w.close());
    w.prepare(`DELETE FROM breaker_events WHERE id = ?`).run(s.botA.clearId);
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const now = later(s.botA.tripAt, 115 * 86_400);
    const open = getIncidentStory({ db: c.db, id: s.botA.tripId, now })!;
    expect(open.story.status).toBe("open");
    expect(open.chartSpan.whole).toBe(false);
    const trip = Date.parse(s.botA.tripAt);
    expect(Date.parse(open.chartSpan.from)).toBeLessThanOrEqual(trip - 10 * 60_000);
    expect(Date.parse(open.chartSpan.to)).toBeGreaterThanOrEqual(trip + 50 * 60_000);
    expect(Date.parse(open.chartSpan.to) - Date.parse(open.chartSpan.from)).toBeLessThanOrEqual(62 * 60_000);
    expect(open.chart?.window).toMatchObject({ from: open.chartSpan.from, to: open.chartSpan.to });
    // The cycles before the trip are in it, and the trip is marked.
    expect(open.chart?.points.some((p) => p.t < trip)).toBe(true);
    expect(open.chart?.markers.map((m) => m.kind)).toContain("trip");
    // The timeline still covers the whole incident, to now.
    expect(Date.parse(open.window.to)).toBeGreaterThanOrEqual(now.getTime());
    // bot-b's, read a minute after its trip: charted whole, as before, to now: not into the window's
    // margin after now (the axis ran about 2 min into the future).
    const readAt = later(s.botB.tripAt, 60);
    const short = getIncidentStory({ db: c.db, id: s.botB.tripId, now: readAt })!;
    expect(Date.parse(short.window.to)).toBeGreaterThan(readAt.getTime() + 60_000);
    expect(short.chartSpan).toEqual({ from: short.window.from, to: readAt.toISOString(), whole: true });
    expect(short.chart?.window).toMatchObject({ from: short.window.from, to: readAt.toISOString() });
  });

  it("stays the same once cleared, however late it is read: nothing after the clear is counted", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    expect(s.botA.endAt > s.botA.clearAt).toBe(true); // the scenario's bot kept cycling after the clear
    const soon = getIncidentStory({ db: c.db, id: s.botA.tripId, now: later(s.botA.clearAt, 1) })!;
    const late = getIncidentStory({ db: c.db, id: s.botA.tripId, now: later(s.botA.endAt, 600) })!;
    expect(late.timeline).toEqual(soon.timeline);
    expect(late.timeline.rows.every((r) => r.lastAt <= s.botA.clearAt)).toBe(true);
    // The clean cycles counted are those from the window's start to the clear, none after it.
    const raw = new Database(s.file, { readonly: true });
    cleanup.push(() => raw.close());
    const cleanBetween = (from: string, to: string) =>
      raw.prepare(`SELECT count(*) FROM reconciliations WHERE bot_id = 'bot-a' AND outcome = 'clean' AND at >= ? AND at <= ?`).pluck().get(from, to) as number;
    expect(cleanBetween(s.botA.clearAt, late.window.to)).toBeGreaterThan(0);
    const counted = late.timeline.routine.find((r) => /^clean reconciliations?$/.test(r.words))?.n ?? 0;
    expect(counted).toBe(cleanBetween(late.window.from, s.botA.clearAt));
  });

  it("tells neither neighbour: the margins stop at the bot's previous clear and its next trip", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const w = consoleWriter(s.file);
    cleanup.push(() => w.close());
    // A hand-made halt 30 s after bot-a's clear: inside the first story's two-minute margin.
    const at = later(s.botA.clearAt, 30).toISOString();
    const handHalt = w
      .transaction(() => {
        w.prepare(
          `UPDATE breakers SET halted = 1, reason = 'drill', changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`,
        ).run(at);
        return Number(
          w
            .prepare(
              `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'trip', 'drill', 'operator:ana', NULL)`,
            )
            .run(at).lastInsertRowid,
        );
      })
      .immediate();
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const now = later(at, 60);
    const times = (id: number) => getIncidentStory({ db: c.db, id, now })!.timeline.rows.flatMap((r) => [r.firstAt, r.lastAt]);
    const first = times(s.botA.tripId);
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((t) => t < at)).toBe(true);
    const second = times(handHalt);
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((t) => t > s.botA.clearAt)).toBe(true);
  });

  it("is null for an id that is no trip", async () => {
    const { s, db } = await scenarioWithActions();
    expect(getIncidentStory({ db, id: s.botA.clearId, now: new Date() })).toBeNull();
    expect(getIncidentStory({ db, id: 999_999, now: new Date() })).toBeNull();
  });
});

describe("the Markdown post-mortem", () => {
  it("holds the summary, who did what with the notes, and the collapsed timeline; names are roles for a reader who may not see them", async () => {
    const { s, db } = await scenarioWithActions();
    const ctx = { q: queryOf(db), config: env(), now: later(s.botB.tripAt, 900) };
    const named = incidentPostmortem((await loadIncidentStory({ ...ctx, names: true, id: s.botB.tripId }))!);
    expect(named).toContain(`# Incident ${s.botB.tripId}: bot-b halted, order ${s.botB.clientOrderId} unknown`);
    expect(named).toContain("- **Time to first operator action:** 1 min 30 s (operator:ana resolved order");
    expect(named).toContain("- **Time to settle the doubtful order:** 1 min 30 s");
    expect(named).toContain("- **Time to clear:** 3 min 20 s");
    expect(named).toContain("   > venue order screen: filled 2 at 3,010\n   > ticket OPS-41");
    expect(named).toContain("operator:ben cleared the halt");
    expect(named).toMatch(/^## Timeline$/m);
    expect(named).toContain("BREAKER TRIPPED by bot");

    const masked = incidentPostmortem((await loadIncidentStory({ ...ctx, names: false, id: s.botB.tripId }))!);
    expect(masked).not.toMatch(/operator:(ana|ben)/);
    expect(masked).toContain("operator cleared the halt");
    expect(postmortemFilename({ id: 12, botId: "../bot b", startedAt: "2026-12-03T05:31:42.000Z" })).toBe("driftwatch-incident-2026-12-03T0531Z_12_bot-b.md");
  });
});

describe("the list of incidents", () => {
  it("lists each trip newest first with its cause, time to first action and to clear, and filters by bot", async () => {
    const { s, db } = await scenarioWithActions();
    const { items, weeks, capped } = listIncidents({ db, bot: null, now: later(s.botA.endAt, 600) });
    expect(capped).toBe(false);
    expect(items.map((i) => i.id)).toEqual([s.botA.tripId, s.botB.tripId].sort((a, b) => b - a));
    const b = items.find((i) => i.botId === "bot-b")!;
    expect(b).toMatchObject({
      status: "cleared",
      cause: `order ${s.botB.clientOrderId} unknown: lookup failed`.slice(0, 0) || b.cause,
      toFirstActionMs: 90_000,
      toClearMs: 200_000,
    });
    expect(items.find((i) => i.botId === "bot-a")).toMatchObject({
      status: "cleared",
      cause: "unknown position ETHUSDT +3",
      toFirstActionMs: 120_000,
      toClearMs: 120_000,
    });
    expect(weeks).toEqual([{ week: "2026-08-10T00:00:00.000Z", incidents: 2, medianToClearMs: 160_000 }]);
    expect(listIncidents({ db, bot: "bot-a", now: new Date() }).items.map((i) => i.botId)).toEqual(["bot-a"]);
  });

  it("reads only through indexes: no full scan of breaker_events, audit_log, orders or reconciliation_positions", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const db = new Database(s.file, { readonly: true });
    cleanup.push(() => db.close());
    const plan = (text: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => "x")) as { detail: string }[])
        .map((r) => r.detail)
        .join("\n");
    for (const text of [TRIP_SQL, CLEAR_SQL, AUDIT_SQL, FIRST_RESPONSE_SQL, listSql(true)]) expect(plan(text), text).not.toMatch(/^SCAN/m);
    // Every bot's trips: newest first down the (at) index, stopped by the LIMIT.
    expect(plan(listSql(false)).match(/^SCAN.*$/gm)).toEqual(["SCAN t USING INDEX breaker_events_at_idx"]);
    expect(plan(AUDIT_SQL)).toMatch(/SEARCH a USING INDEX audit_log_at_idx/);
    expect(plan(FIRST_RESPONSE_SQL)).toMatch(/SEARCH a USING INDEX audit_log_at_idx/);
  });
});

describe("the story's timeline, one bot's window", () => {
  it("reads order events by their (at) index, in its order, never by walking every order of the bot", async () => {
    const s = await writeIncidentScenario();
    cleanup.push(s.close);
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    // The timeline's own statement, captured as the connection compiles it, then asked for its plan on the same journal.
    const ran: string[] = [];
    const sqlite = c.db.$client;
    const client = new Proxy(sqlite, {
      get: (target, key) => {
        if (key === "prepare")
          return (text: string) => {
            ran.push(text);
            return target.prepare(text);
          };
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const recording = new Proxy(c.db, { get: (target, key, receiver) => (key === "$client" ? client : (Reflect.get(target, key, receiver) as unknown)) });
    const window = { from: s.botA.tripAt, to: s.botA.endAt };
    getIncidentTimeline({ db: recording, window, filters: { bot: "bot-b", kinds: [...INCIDENT_KINDS] } });
    const plan = (
      sqlite.prepare(`EXPLAIN QUERY PLAN ${ran.find((t) => t.includes("FROM order_events e"))!}`).all(window.from, window.to, "bot-b", 1) as {
        detail: string;
      }[]
    )
      .map((r) => r.detail)
      .join("\n");
    expect(plan).toMatch(/SEARCH e USING INDEX order_events_at_idx/);
    expect(plan).not.toMatch(/orders_bot_symbol_created_idx/);
    // Each source is read in its index's order and merged: the window's rows are never sorted.
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});

describe("the demo's scenarios as incidents", () => {
  it("lost-reply-unknown: alpha's halt is open, behind it the unknown BTCUSDT order, its failed lookups one row with a count", async () => {
    const result = await SCENARIOS["lost-reply-unknown"].run({ file: migratedJournal("story-lost"), migrationsDir });
    const c = consoleDb(result.file);
    cleanup.push(c.close);
    const { items } = listIncidents({ db: c.db, bot: "alpha", now: new Date(result.to) });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: "open", toFirstActionMs: null, toClearMs: null });
    const { story, timeline } = getIncidentStory({ db: c.db, id: items[0]!.id, now: new Date(result.to) })!;
    const unknown = c.db.$client.prepare(`SELECT client_order_id FROM orders WHERE bot_id = 'alpha' AND state = 'unknown'`).pluck().all();
    expect(unknown).toHaveLength(1);
    expect(story.order).toMatchObject({
      clientOrderId: unknown[0],
      symbol: "BTCUSDT",
      state: "unknown",
      settledAt: null,
    });
    expect(story.symbol).toBe("BTCUSDT");
    expect(story.durations).toEqual({ toFirstActionMs: null, toSettleMs: null, toClearMs: null });
    expect(new Set(timeline.rows.map((r) => sameEventKey(r.event))).size).toBe(timeline.rows.length);
    // Every failed lookup of the order, one row: "error on buy 0.5 BTCUSDT during lookup: … ×18".
    const failed = c.db.$client.prepare(`SELECT count(*) FROM order_events WHERE client_order_id = ? AND kind = 'error'`).pluck().get(unknown[0]) as number;
    expect(failed).toBeGreaterThan(5);
    const lookups = timeline.rows.filter((r) => r.event.kind === "error");
    expect(lookups.map((r) => r.count)).toEqual([failed]);
    expect(lookups[0]!.event.summary).toMatch(/^error on buy 0\.5 BTCUSDT during lookup: lookup failed/);
    // The unchanged drift cycles while halted are routine, never notable.
    expect(timeline.rows.filter((r) => r.event.source === "reconciliation")).toHaveLength(1);
  });

  it("size-drift: beta's cause is the drifting AAPL line, book +100 against exchange +60", async () => {
    const result = await SCENARIOS["size-drift"].run({ file: migratedJournal("story-size"), migrationsDir });
    const c = consoleDb(result.file);
    cleanup.push(c.close);
    const { items } = listIncidents({ db: c.db, bot: "beta", now: new Date(result.to) });
    expect(items).toHaveLength(1);
    const { story } = getIncidentStory({ db: c.db, id: items[0]!.id, now: new Date(result.to) })!;
    expect(story.cause.drift).toMatchObject({ symbol: "AAPL", ours: 100, theirs: 60, drift: "size_drift" });
    expect(story.order).toBeNull();
  });
});

describe("the demo run's 39-minute lost order", () => {
  it("times the hand resolution and the clear from the trip, and shows the failed lookups as one row", async () => {
    const s = await writeIncidentScenario({ longLostOrder: true });
    cleanup.push(s.close);
    const c = consoleDb(s.file);
    cleanup.push(c.close);
    const { story, timeline } = getIncidentStory({ db: c.db, id: s.botB.tripId, now: new Date() })!;
    expect(story.durations).toEqual({
      toFirstActionMs: LONG_STORY.ackAfterS * 1000,
      toSettleMs: LONG_STORY.resolveAfterS * 1000,
      toClearMs: LONG_STORY.clearAfterS * 1000,
    });
    expect(story.steps.map((x) => [x.actor, x.note])).toEqual([
      ["operator:ana", ACK_NOTE],
      ["operator:ana", RESOLVE_NOTE],
      ["operator:ben", CLEAR_NOTE],
    ]);
    const failed = c.db.$client
      .prepare(`SELECT count(*) FROM order_events WHERE client_order_id = ? AND kind = 'error'`)
      .pluck()
      .get(s.botB.clientOrderId) as number;
    expect(failed).toBeGreaterThanOrEqual(LONG_STORY.lookups);
    expect(timeline.rows.filter((r) => r.event.kind === "error").map((r) => r.count)).toEqual([failed]);
    expect(timeline.rows.length).toBeLessThan(12);
  });
});

describe("an incident of a pruned journal", () => {
  it("says what the prune took, with the dates: the window's cycles, and the order only where it was pruned; an incident after every horizon says none", async () => {
    const fx = await prunedIncidentJournal();
    const c = consoleDb(fx.file);
    cleanup.push(c.close, () => fs.rmSync(path.dirname(fx.file), { recursive: true, force: true }));
    const now = new Date(fx.now);
    const prunedOn = fx.prunedOn;

    // The lost order's trip: its cause order kept (the trip names it), its cycles pruned.
    const lost = getIncidentStory({ db: c.db, id: fx.lostOrder, now })!;
    expect(lost.story.order?.clientOrderId).toBe(CAUSE_ORDER);
    expect(lost.pruned).toMatchObject({ cyclesPrunedOn: prunedOn, order: null });
    expect(lost.pruned.history?.incidentPruned?.on).toBe(prunedOn);
    const md = incidentPostmortem(lost);
    expect(md).toContain(`The reconciliation cycles of this window were pruned on ${formatUtc(prunedOn)}`);
    expect(md).toContain(`- **Order behind it:** \`${CAUSE_ORDER}\``);

    // The drift's trip names no order, and the order horizon passed its time: never "none found".
    const drift = getIncidentStory({ db: c.db, id: fx.drift, now })!;
    expect(drift.story.order).toBeNull();
    expect(drift.pruned).toMatchObject({ cyclesPrunedOn: prunedOn, order: { on: prunedOn, before: fx.report.orderHorizon } });
    const driftMd = incidentPostmortem(drift);
    expect(driftMd).toContain(`were pruned on ${formatUtc(prunedOn)}, it may have been one`);
    expect(driftMd).not.toMatch(/none found|no doubtful order/);

    // After every horizon: nothing pruned, and an order never written is still none found.
    const recent = getIncidentStory({ db: c.db, id: fx.recent, now })!;
    expect(recent.pruned).toEqual({ history: null, cyclesPrunedOn: null, order: null });
    expect(incidentPostmortem(recent)).toContain("- **Order behind it:** none found");

    // Minute by minute over the lost order's incident: the 50 minutes between its trip and its
    // lookup are pruned cycles, not a quiet market.
    const window = { from: lost.window.from, to: lost.window.to };
    const t = getFoldedIncidentTimeline({ db: c.db, window, filters: { bot: "alpha", kinds: [...INCIDENT_KINDS] } });
    const gaps = t.minutes.slice(1).map((m, i) => gapWords({ from: t.minutes[i]!.start + 60_000, to: m.start }, t.pruned));
    expect(gaps.filter((g) => !g.startsWith("0 "))).toContain(`49 minutes: reconciliation cycles pruned on ${formatUtc(prunedOn)}`);
    expect(gaps.join(" ")).not.toContain("nothing recorded");

    // The list marks the two whose cycles went.
    const list = listIncidents({ db: c.db, bot: null, now });
    expect(list.items.map((i) => [i.id, i.cyclesPrunedOn])).toEqual([
      [fx.recent, null],
      [fx.drift, prunedOn],
      [fx.lostOrder, prunedOn],
    ]);
  });
});
