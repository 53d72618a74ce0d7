import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { appendAudit } from "@/lib/audit/log";
import { INCIDENT_KINDS, type IncidentKind } from "@/lib/url-state/incidents";
import { getIncidentTimeline, listIncidentBots, resolveIncidentWindow } from "@/lib/queries/incidents";
import { botOnSim } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";
import { migratedJournal } from "../helpers/journal";
import { OPERATOR_REASON, writeIncidentScenario } from "../helpers/incident-journal";
import { consoleAuditKey } from "@/lib/audit/key";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const HOUR = { from: "2026-08-10T15:00:00.000Z", to: "2026-08-10T16:00:00.000Z" };
const ALL = { bot: null, kinds: [...INCIDENT_KINDS] };

async function scenario() {
  const s = await writeIncidentScenario();
  const c = consoleDb(s.file);
  cleanup.push(c.close, s.close);
  return { s, db: c.db };
}

describe("getIncidentTimeline", () => {
  it("merges order events, reconciliations, trips and clears of every bot in time order", async () => {
    const { s, db } = await scenario();
    const { events, capped } = getIncidentTimeline({ db, window: HOUR, filters: ALL });
    expect(capped).toBe(false);
    expect(events).toHaveLength(s.counts.orderEvents + s.counts.reconciliations + s.counts.breakerEvents);
    const times = events.map((e) => e.at);
    expect(times).toEqual([...times].sort());
    expect(new Set(events.map((e) => e.botId))).toEqual(new Set(["bot-a", "bot-b"]));

    // At one instant, cause before effect: the drift cycle, the close it placed, the trip.
    const atTrip = events.filter((e) => e.at === s.botA.tripAt).map((e) => `${e.source}:${e.kind}`);
    expect(atTrip).toEqual(["reconciliation:drift", "order:intent", "order:send", "breaker:trip"]);
    // bot-b: a lost reply, failing lookups, the order unknown, then the trip.
    const b = events.filter((e) => e.botId === "bot-b").map((e) => `${e.source}:${e.kind}`);
    expect(b[0]).toBe("order:intent");
    expect(b.slice(1, 2)).toEqual(["order:timeout"]);
    expect(b.slice(-2)).toEqual(["order:status", "breaker:trip"]);
  });

  it("says what each event means, and marks trips, unknown positions and unknown orders as emergencies", async () => {
    const { s, db } = await scenario();
    const { events } = getIncidentTimeline({ db, window: HOUR, filters: ALL });
    const drift = events.find((e) => e.id === `reconciliation-${s.botA.reconciliationId}`)!;
    expect(drift).toMatchObject({ kind: "drift", severity: "emergency", drifts: [{ symbol: "ETHUSDT", ours: 0, theirs: 3, drift: "unknown_position" }] });
    expect(drift.summary).toBe("DRIFT on 1 symbol: ETHUSDT ours 0 / theirs +3 (UNKNOWN POSITION)");
    expect(events.find((e) => e.id === `breaker-${s.botA.tripId}`)).toMatchObject({
      severity: "emergency",
      reconciliationId: s.botA.reconciliationId,
      summary: `BREAKER TRIPPED by bot: unknown position ETHUSDT +3 (reconciliation #${s.botA.reconciliationId})`,
    });
    expect(events.find((e) => e.id === `breaker-${s.botA.clearId}`)).toMatchObject({
      kind: "clear",
      actor: "operator:ana",
      operator: true,
      severity: "notice",
      reason: OPERATOR_REASON,
    });
    const unknown = events.find((e) => e.source === "order" && e.kind === "status" && e.botId === "bot-b")!;
    expect(unknown).toMatchObject({ severity: "emergency", clientOrderId: s.botB.clientOrderId, symbol: "ETHUSDT", side: "buy", qty: 2 });
    expect(unknown.summary).toMatch(/^buy 2 ETHUSDT is UNKNOWN: nobody can say whether the exchange has it/);
    expect(events.find((e) => e.source === "order" && e.kind === "send" && e.strategy === "reconcile")!.summary).toMatch(
      /^the reduce-only close \(sell 3 ETHUSDT\) sent; the exchange says filled, 3 filled at /,
    );
    expect(events.filter((e) => e.source === "reconciliation" && e.kind === "clean").every((e) => e.summary === "reconciled: the books agree")).toBe(true);
    expect(events.find((e) => e.kind === "intent")!.detail).toEqual({ seed: expect.stringContaining("|") });
  });

  it("filters by bot and by kind; operator actions come from every source that has an actor", async () => {
    const { s, db } = await scenario();
    // An operator's note on bot-b's unknown order, as the console will write one.
    const w = botOnSim({ file: s.file, botId: "bot-b", prefix: "b700" });
    cleanup.push(w.close);
    w.db
      .prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, '2026-08-10T15:33:00.000Z', 'operator', 'operator:bob', ?)`)
      .run(s.botB.clientOrderId, JSON.stringify({ action: "note", note: 'asked the venue, "no fill", will check again' }));

    const only = (kinds: IncidentKind[], bot: string | null = null) => getIncidentTimeline({ db, window: HOUR, filters: { bot, kinds } }).events;
    expect(only([...INCIDENT_KINDS], "bot-a").every((e) => e.botId === "bot-a")).toBe(true);
    expect(only([...INCIDENT_KINDS], "bot-b").map((e) => e.source)).not.toContain("reconciliation");
    expect(new Set(only(["breaker"]).map((e) => e.source))).toEqual(new Set(["breaker"]));
    expect(only(["reconciliation"], "bot-a")).toHaveLength(s.counts.reconciliations);
    const ops = only(["operator"]);
    expect(ops.map((e) => [e.source, e.actor])).toEqual([
      ["breaker", "operator:ana"],
      ["order", "operator:bob"],
    ]);
    expect(ops[1]!.summary).toBe(`operator:bob acted on buy 2 ETHUSDT: note`);
    expect(only(["operator"], "bot-a").map((e) => e.actor)).toEqual(["operator:ana"]);
    // order + operator: the order events, with the operator's note among them, once.
    expect(
      only(["order", "operator"])
        .filter((e) => e.operator)
        .map((e) => e.source),
    ).toEqual(["breaker", "order"]);
  });

  it("merges the audit log as operator actions, each under the bot its target names", async () => {
    const { s, db } = await scenario();
    const w = botOnSim({ file: s.file, botId: "bot-b", prefix: "b700" });
    cleanup.push(w.close);
    const audit = (at: string, actor: string, action: string, target: string, outcome: "applied" | "refused", code: string | null = null) =>
      w.db
        .transaction(() => appendAudit(w.db, { at, actor, action, target, outcome, code, detail: { reason: 'checked, "all good"' } }, consoleAuditKey()))
        .immediate();
    audit(s.botA.clearAt, "operator:ana", "clear_halt", "bot-a", "applied");
    audit("2026-08-10T15:33:00.000Z", "operator:bob", "resolve_order", s.botB.clientOrderId, "refused", "refused");
    audit("2026-08-10T15:34:00.000Z", "operator:bob", "acknowledge_drift", "bot-a/ETHUSDT", "applied");
    audit("2026-08-10T15:35:00.000Z", "anonymous", "clear_halt", "bot-b", "refused", "unauthorized");

    const get = (kinds: IncidentKind[], bot: string | null = null) => getIncidentTimeline({ db, window: HOUR, filters: { bot, kinds } }).events;
    const audits = get(["operator"]).filter((e) => e.source === "audit");
    expect(audits.map((e) => [e.kind, e.botId, e.outcome, e.severity])).toEqual([
      ["clear_halt", "bot-a", "applied", "notice"],
      ["resolve_order", "bot-b", "refused", "warning"],
      ["acknowledge_drift", "bot-a", "applied", "notice"],
      ["clear_halt", "bot-b", "refused", "warning"],
    ]);
    expect(audits[3]!.summary).toBe("anonymous: Clear a halt on bot-b: refused (unauthorized)");
    // At the clear's instant, the breaker event comes first, then the audit entry that recorded it.
    const atClear = get([...INCIDENT_KINDS])
      .filter((e) => e.at === s.botA.clearAt)
      .map((e) => e.source);
    expect(atClear).toEqual(["breaker", "audit"]);
    expect(
      get(["operator"], "bot-a")
        .filter((e) => e.source === "audit")
        .map((e) => e.kind),
    ).toEqual(["clear_halt", "acknowledge_drift"]);
    expect(get(["order", "reconciliation", "breaker"]).some((e) => e.source === "audit")).toBe(false);
  });

  it("is half-open: an event at `from` is in, one at `to` belongs to the next window", async () => {
    const { s, db } = await scenario();
    const at = s.botA.clearAt;
    const ids = (w: { from: string; to: string }) => getIncidentTimeline({ db, window: w, filters: ALL }).events.map((e) => e.id);
    expect(ids({ from: at, to: "2026-08-10T16:00:00.000Z" })).toContain(`breaker-${s.botA.clearId}`);
    expect(ids({ from: HOUR.from, to: at })).not.toContain(`breaker-${s.botA.clearId}`);
  });

  it("stops at the cap, keeps the earliest events, and says it was capped", async () => {
    const { db } = await scenario();
    const full = getIncidentTimeline({ db, window: HOUR, filters: ALL }).events;
    const cut = getIncidentTimeline({ db, window: HOUR, filters: ALL, limit: 5 });
    expect(cut).toMatchObject({ capped: true, limit: 5 });
    expect(cut.events.map((e) => e.id)).toEqual(full.slice(0, 5).map((e) => e.id));
    expect(getIncidentTimeline({ db, window: HOUR, filters: ALL, limit: full.length })).toMatchObject({ capped: false });
  });

  // A bot whose clock stepped back, or whose events were written late, still reads in time order.
  it("orders the order events by time, then id, however the bot wrote them", () => {
    const file = migratedJournal("rowid-order");
    const w = new Database(file);
    const ids = new Map<number, string>();
    const event = (id: number, at: string, kind = "intent") => {
      const cid = `b-${id}`;
      w.prepare(
        `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, created_at, updated_at) VALUES (?, 'b', 's', 'BTCUSDT', 'buy', 1, ?, ?, ?)`,
      ).run(cid, at, at, at);
      w.prepare(`INSERT INTO order_events (id, client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, 'bot', '{}')`).run(id, cid, at, kind);
      ids.set(id, at);
    };
    const minute = (m: number, ms = 0) => `2026-08-10T15:${String(m).padStart(2, "0")}:00.${String(ms).padStart(3, "0")}Z`;
    // In time order, then written late: two rows whose times are earlier than rows before them, a
    // tie broken by id, and rows outside the window between the window's ids.
    for (let i = 0; i < 30; i++) event(100 + i, minute(10 + i));
    event(130, minute(12, 500));
    event(131, minute(11));
    event(132, "2026-08-10T14:59:59.999Z");
    event(133, "2026-08-10T16:00:00.000Z");
    event(134, minute(45));
    // A clock that jumped back far: ids spread far wider than the window's rows.
    event(900_000, minute(5));
    const c = consoleDb(file);
    cleanup.push(c.close, () => w.close());
    const expected = (from: string, to: string) =>
      [...ids]
        .filter(([, at]) => at >= from && at < to)
        .sort(([a, at], [b, bt]) => (at < bt ? -1 : at > bt ? 1 : a - b))
        .map(([id]) => `order-${id}`);
    const read = (from: string, to: string, limit?: number) =>
      getIncidentTimeline({ db: c.db, window: { from, to }, filters: { bot: null, kinds: ["order"] }, limit });

    // Late rows among rows written in time order.
    const dense = read(minute(10), HOUR.to);
    expect(dense.events.map((e) => e.id)).toEqual(expected(minute(10), HOUR.to));
    expect(dense.events.map((e) => e.id).slice(0, 4)).toEqual(["order-100", "order-101", "order-131", "order-102"]);
    // A row whose id is far from the others'.
    const wide = read(HOUR.from, HOUR.to);
    expect(wide.events.map((e) => e.id)).toEqual(expected(HOUR.from, HOUR.to));
    expect(wide.events[0]!.id).toBe("order-900000");
    // Over the cap: the earliest events in time order, not the lowest ids.
    const cut = read(minute(10), HOUR.to, 3);
    expect(cut).toMatchObject({ capped: true });
    expect(cut.events.map((e) => e.id)).toEqual(["order-100", "order-101", "order-131"]);
    expect(read(minute(10), HOUR.to, 33)).toMatchObject({ capped: false });
    // Every event once, each with its order's facts.
    expect(dense.events.every((e) => e.symbol === "BTCUSDT" && e.botId === "b")).toBe(true);
  });
});

describe("resolveIncidentWindow", () => {
  it("keeps a window the URL gave", async () => {
    const { db } = await scenario();
    expect(resolveIncidentWindow({ db, now: new Date(), ...HOUR })).toEqual({ ...HOUR, defaulted: null });
  });

  it("defaults to the last hour when something happened in it", async () => {
    const { db, s } = await scenario();
    const now = new Date(Date.parse(s.botA.endAt) + 10 * 60_000 + 1_234);
    expect(resolveIncidentWindow({ db, now, from: null, to: null })).toEqual({
      from: "2026-08-10T14:43:00.000Z",
      to: "2026-08-10T15:43:00.000Z",
      defaulted: "last_hour",
    });
  });

  it("falls back to the hour up to the latest activity when the last hour is empty (the morning after)", async () => {
    const { db, s } = await scenario();
    const w = resolveIncidentWindow({ db, now: new Date("2026-08-11T08:00:00.000Z"), from: null, to: null });
    expect(w).toEqual({ from: "2026-08-10T14:33:00.000Z", to: "2026-08-10T15:33:00.000Z", defaulted: "latest_activity" });
    expect(Date.parse(s.botA.endAt)).toBeLessThan(Date.parse(w.to));
    expect(getIncidentTimeline({ db, window: w, filters: ALL }).events.at(-1)!.at).toBe(s.botA.endAt);
  });

  it("says the journal is empty when it holds nothing to review", () => {
    const c = consoleDb(migratedJournal("empty"));
    cleanup.push(c.close);
    expect(resolveIncidentWindow({ db: c.db, now: new Date("2026-08-11T08:00:00.000Z"), from: null, to: null })).toMatchObject({ defaulted: "empty_journal" });
    expect(listIncidentBots({ db: c.db })).toEqual([]);
  });
});
