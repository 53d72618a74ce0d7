import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldTimeline, tallyEvents } from "@/lib/incidents/fold";
import { getFoldedIncidentTimeline, getIncidentTimeline } from "@/lib/queries/incidents";
import { INCIDENT_KINDS, type IncidentKind } from "@/lib/url-state/incidents";
import { writeReferenceJournal } from "@/tools/bench/reference-journal";
import { consoleDb } from "../helpers/console-db";
import { migrationsDir, tempDir } from "../helpers/journal";

// A busy journal (two bots, about 2,500 orders an hour each, drifting and tripping), and in one of
// its busy minutes the order events whose words a count in SQL could get wrong.
const end = new Date("2026-08-12T00:00:00.000Z");
const HOUR = { from: "2026-08-11T22:00:00.000Z", to: "2026-08-11T23:00:00.000Z" };
const ALL = { bot: null, kinds: [...INCIDENT_KINDS] };
const ODD = "2026-08-11T22:30:";

let file: string;
let c: ReturnType<typeof consoleDb>;

/** The page's timeline read the plain way: every event read and worded, then folded (what the SQL count must equal). */
function wholeRead(params: Parameters<typeof getIncidentTimeline>[0]) {
  const t = getIncidentTimeline(params);
  return { count: t.events.length, capped: t.capped, minutes: foldTimeline(t.events), tallies: tallyEvents(t.events) };
}
const folded = (params: Parameters<typeof getIncidentTimeline>[0]) => {
  const t = getFoldedIncidentTimeline(params);
  return { got: { count: t.count, capped: t.capped, minutes: t.minutes, tallies: t.tallies }, countedInSql: t.countedInSql };
};

beforeAll(() => {
  file = `${tempDir("fold-sql")}/busy.sqlite`;
  writeReferenceJournal({ file, days: 0.125, end, symbolsPerBot: 6, ordersPerDay: 60_000, driftsPerDay: 48, migrationsDir });
  const w = new Database(file);
  const order = w.prepare(
    `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) VALUES (?, 'alpha', ?, 'BTCUSDT', 'sell', 0.5, ?, 'sent', ?, ?)`,
  );
  const event = w.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, ?)`);
  const odd: [id: string, strategy: string, kind: string, actor: string, detail: string][] = [
    // unknown, spelled with a JSON escape: an emergency the words see
    ["odd-escaped", "trend", "status", "bot", '{"status":"\\u0075nknown","why":"no reply"}'],
    ["odd-rejected", "trend", "status", "bot", '{"status":"rejected","reason":"margin"}'],
    // the last of two keys is the one JSON.parse keeps: filled, routine, though "unknown" is in the text
    ["odd-twice", "trend", "status", "bot", '{"status":"unknown","status":"filled"}'],
    ["odd-text", "trend", "status", "bot", "unknown venue reply, not JSON"],
    ["odd-close", "reconcile", "send", "bot", '{"status":"filled","filledQty":0.5,"avgPrice":100}'],
    ["odd-operator", "trend", "intent", "operator:ana", '{"note":"placed by hand"}'],
    ["odd-role", "trend", "status", "operator", '{"status":"filled"}'],
    // the bot's lookups settle an order in doubt: notice, never counted
    ["odd-found", "trend", "lookup_found", "bot", '{"status":"filled","filledQty":0.5,"avgPrice":100}'],
    ["odd-absent", "trend", "lookup_absent", "bot", '{"during":"send"}'],
  ];
  odd.forEach(([id, strategy, kind, actor, detail], i) => {
    const at = `${ODD}${String(10 + i).padStart(2, "0")}.000Z`;
    order.run(id, strategy, at, at, at);
    event.run(id, at, kind, actor, detail);
  });
  // An order event of an order the orders table does not hold.
  event.run("odd-missing", `${ODD}20.000Z`, "send", "bot", "{}");
  // A lookup failing every 2.5 s: the same words, said again one under the other.
  order.run("odd-lookup", "trend", `${ODD}30.000Z`, `${ODD}30.000Z`, `${ODD}30.000Z`);
  for (let i = 0; i < 6; i++)
    event.run(
      "odd-lookup",
      `${ODD}${30 + i * 2}.500Z`,
      "error",
      "bot",
      JSON.stringify({ during: "lookup", error: "lookup failed: venue 503", attempt: i + 1 }),
    );
  // A Halt now made in the console: its trip and its audit entry, one action at one moment.
  w.prepare(
    `INSERT INTO breaker_events (bot_id, at, kind, reason, actor) VALUES ('alpha', ?, 'trip', 'halted by hand: venue maintenance', 'operator:ana')`,
  ).run(`${ODD}50.000Z`);
  w.prepare(
    `INSERT INTO audit_log (at, actor, action, target, outcome, code, detail, prev_hash, hash)
     SELECT ?, 'operator:ana', 'halt_bot', 'alpha', 'applied', NULL, '{}', coalesce((SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1), 'genesis'), 'test'`,
  ).run(`${ODD}50.000Z`);
  w.close();
  c = consoleDb(file);
});
afterAll(() => c?.close());

describe("the incident page's timeline, its routine order events counted in SQL", () => {
  it("is the whole read folded, minute for minute and event for event, over every hour, bot and reader", () => {
    // The journal's three hours.
    const hours = [1, 0, -1].map((i) => ({
      from: new Date(Date.parse(HOUR.from) + i * 3_600_000).toISOString(),
      to: new Date(Date.parse(HOUR.to) + i * 3_600_000).toISOString(),
    }));
    for (const window of hours)
      for (const bot of [null, "alpha", "beta"])
        for (const names of [true, false]) {
          const { got, countedInSql } = folded({ db: c.db, window, filters: { bot, kinds: [...INCIDENT_KINDS] }, names });
          expect(countedInSql).toBe(true);
          expect(got).toEqual(wholeRead({ db: c.db, window, filters: { bot, kinds: [...INCIDENT_KINDS] }, names }));
          expect(got.minutes.some((m) => m.fold !== null)).toBe(true);
        }
  });

  it("shows the odd order events of a busy minute as their words judge them", () => {
    const { got, countedInSql } = folded({ db: c.db, window: HOUR, filters: ALL, names: false });
    expect(countedInSql).toBe(true);
    expect(got).toEqual(wholeRead({ db: c.db, window: HOUR, filters: ALL, names: false }));
    const minute = got.minutes.find((m) => new Date(m.start).toISOString().startsWith(ODD.slice(0, 16)))!;
    expect(minute.fold).not.toBeNull();
    const shown = new Map(minute.shown.map((e) => [e.clientOrderId, e]));
    expect(shown.get("odd-escaped")?.severity).toBe("emergency");
    expect(shown.get("odd-rejected")?.severity).toBe("warning");
    expect(shown.get("odd-close")?.severity).toBe("notice");
    expect(shown.get("odd-operator")?.actor).toBe("operator");
    expect(shown.get("odd-role")?.operator).toBe(true);
    expect([shown.get("odd-found")?.severity, shown.get("odd-absent")?.severity]).toEqual(["notice", "notice"]);
    // Routine by their words, so folded and counted.
    for (const id of ["odd-twice", "odd-text", "odd-missing"]) expect(shown.has(id)).toBe(false);
    // The failing lookup, said six times one under the other, is one line of six.
    const lookup = minute.lines.filter((l) => l.event.clientOrderId === "odd-lookup");
    expect(lookup.map((l) => [l.count, l.firstAt, l.lastAt])).toEqual([[6, `${ODD}30.500Z`, `${ODD}40.500Z`]]);
    expect(minute.shown.filter((e) => e.clientOrderId === "odd-lookup")).toEqual([lookup[0]!.event, ...lookup[0]!.repeats]);
    // The console's halt is one row, its audit entry told on it, and one operator action of the window's.
    const halt = minute.lines.filter((l) => l.event.source === "breaker" && l.event.actor === "operator");
    expect(halt.map((l) => [l.event.kind, l.audit.map((a) => a.kind)])).toEqual([["trip", ["halt_bot"]]]);
    expect(minute.lines.some((l) => l.event.source === "audit" && l.event.kind === "halt_bot")).toBe(false);
    const operatorEvents = getIncidentTimeline({ db: c.db, window: HOUR, filters: ALL, names: false }).events.filter((e) => e.operator).length;
    // Each console action of the hour (this halt, and the journal's own clears) is counted once, as it is one row.
    const told = got.minutes.reduce((n, m) => n + m.lines.reduce((k, l) => k + l.audit.length, 0), 0);
    expect(told).toBeGreaterThanOrEqual(1);
    expect(got.tallies.operatorActions).toBe(operatorEvents - told);
    expect(got.tallies.unknownOrders).toBeGreaterThanOrEqual(1);
  });

  it("reads minutes too quiet to fold whole, at a window's cut edges too", () => {
    const windows = [
      { from: "2026-08-11T22:10:59.500Z", to: "2026-08-11T22:20:00.250Z" },
      { from: "2026-08-11T22:29:59.990Z", to: "2026-08-11T22:30:00.001Z" },
      { from: "2026-08-11T23:59:00.000Z", to: "2026-08-12T01:00:00.000Z" },
      { from: "2020-01-01T00:00:00.000Z", to: "2020-01-01T01:00:00.000Z" },
    ];
    let whole = 0;
    for (const window of windows) {
      const { got } = folded({ db: c.db, window, filters: ALL });
      expect(got).toEqual(wholeRead({ db: c.db, window, filters: ALL }));
      for (const m of got.minutes.filter((m) => m.fold === null)) {
        expect(m.shown.length).toBe(m.total);
        whole += 1;
      }
    }
    expect(whole).toBeGreaterThan(0);
  });

  it("gives the same page for every choice of kinds", () => {
    const choices: IncidentKind[][] = [["order"], ["order", "operator"], ["reconciliation"], ["breaker", "operator"], ["order", "reconciliation"]];
    for (const kinds of choices)
      expect(folded({ db: c.db, window: HOUR, filters: { bot: null, kinds } }).got).toEqual(
        wholeRead({ db: c.db, window: HOUR, filters: { bot: null, kinds } }),
      );
  });

  it("reads the whole window where it cannot count in SQL: over the cap, or a time not written as the contract says", () => {
    const capped = folded({ db: c.db, window: HOUR, filters: ALL, limit: 1_000 });
    expect(capped.countedInSql).toBe(false);
    expect(capped.got.capped).toBe(true);
    expect(capped.got).toEqual(wholeRead({ db: c.db, window: HOUR, filters: ALL, limit: 1_000 }));

    const w = new Database(file);
    w.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES ('odd-time', '2026-08-11T21:30:00Z', 'intent', 'bot', '{}')`).run();
    w.close();
    const window = { from: "2026-08-11T21:00:00.000Z", to: "2026-08-11T22:00:00.000Z" };
    const odd = folded({ db: c.db, window, filters: ALL });
    expect(odd.countedInSql).toBe(false);
    expect(odd.got).toEqual(wholeRead({ db: c.db, window, filters: ALL }));
  });
});
