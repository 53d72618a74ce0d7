/**
 * The queries that count and list doubtful orders (the clear checklist, the overview, the doubtful
 * list) decide with SQL what the symbol page and the resolve action decide with classifyOrder. The
 * SQL comes from one builder in lib/journal/order-state.ts; this runs it, and each query built on
 * it, on a real migrated journal and compares every order with classifyOrder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateJournal } from "@/lib/db/journal-file";
import * as schema from "@/lib/db/schema";
import { ORDER_STATES, type OrderState } from "@/lib/journal/contract";
import { classifyOrder, doubtfulCutoff, doubtfulOrderSql } from "@/lib/journal/order-state";
import { getClearFacts } from "@/lib/queries/clear-checklist";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";
import { getOverview } from "@/lib/queries/overview";

interface Case {
  state: OrderState;
  /** How long before `now` the order was last updated; negative is a bot clock ahead. */
  agoMs: number;
}

let dir: string;
let sqlite: Database.Database;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-doubtful-sql-"));
  const file = path.join(dir, "journal.db");
  migrateJournal(file, { migrationsDir: path.resolve(import.meta.dirname, "../../drizzle") });
  sqlite = new Database(file);
  sqlite.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('bot-a', 'sim', 'a', NULL)`).run();
});
afterAll(() => {
  sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Replaces every order with `cases`, ids o0, o1… in order. */
function writeOrders(cases: readonly Case[], now: Date): void {
  const insert = sqlite.prepare(
    `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at)
     VALUES (?, 'bot-a', 'trend', 'AAPL', 'buy', 1, '2026-08-10T15:30:00Z', ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    sqlite.prepare(`DELETE FROM orders`).run();
    cases.forEach((c, i) => {
      const at = new Date(now.getTime() - c.agoMs).toISOString();
      insert.run(`o${i}`, c.state, at, at);
    });
  })();
}

/** What classifyOrder says, per order id. */
function expectedDoubtful(cases: readonly Case[], now: Date, graceMs: number): string[] {
  return cases.flatMap((c, i) =>
    classifyOrder({ state: c.state, updatedAt: new Date(now.getTime() - c.agoMs).toISOString() }, { now, graceMs }) === "doubtful" ? [`o${i}`] : [],
  );
}

function doubtfulBySql(now: Date, graceMs: number): string[] {
  return sqlite
    .prepare(`SELECT client_order_id FROM orders WHERE ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?" })} ORDER BY rowid`)
    .pluck()
    .all(doubtfulCutoff({ now, graceMs })) as string[];
}

/** The three queries that count doubtful orders, as the pages and the clear action read them. */
async function queryCounts(now: Date, graceMs: number) {
  const db = drizzle(sqlite, { schema });
  return {
    clearChecklist: getClearFacts({ db: sqlite, botId: "bot-a", now, heartbeatStaleMs: 60_000, doubtfulGraceMs: graceMs }).doubtfulOrders,
    overview: (await getOverview({ db, now, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: graceMs })).bots[0]!.doubtfulOrders,
    doubtfulList: (await listDoubtfulOrders({ db, now, graceMs })).total,
  };
}

const now = new Date("2026-08-10T15:31:00.000Z");
const graceMs = 30_000;

describe("the doubtful-order SQL agrees with classifyOrder", () => {
  const table: [string, boolean, Case][] = [
    ["unknown, written a moment ago", true, { state: "unknown", agoMs: 0 }],
    ["created, 1 ms inside the grace period", false, { state: "created", agoMs: graceMs - 1 }],
    ["sent, exactly at the end of the grace period", false, { state: "sent", agoMs: graceMs }],
    ["sent, 1 ms past the grace period", true, { state: "sent", agoMs: graceMs + 1 }],
    ["created, a day old", true, { state: "created", agoMs: 86_400_000 }],
    ["created, stamped by a bot clock ahead of the console", false, { state: "created", agoMs: -60_000 }],
    ["open, a day old", false, { state: "open", agoMs: 86_400_000 }],
    ["partially_filled, a day old", false, { state: "partially_filled", agoMs: 86_400_000 }],
    ["filled, a day old", false, { state: "filled", agoMs: 86_400_000 }],
    ["absent, a moment ago", false, { state: "absent", agoMs: 0 }],
  ];

  it.each(table)("%s: doubtful is %s in SQL, in classifyOrder and in every query", async (_name, doubtful, c) => {
    writeOrders([c], now);
    expect(expectedDoubtful([c], now, graceMs)).toEqual(doubtful ? ["o0"] : []);
    expect(doubtfulBySql(now, graceMs)).toEqual(doubtful ? ["o0"] : []);
    const n = doubtful ? 1 : 0;
    expect(await queryCounts(now, graceMs)).toEqual({ clearChecklist: n, overview: n, doubtfulList: n });
  });

  it("for any states, times and grace periods, the SQL and the three queries find exactly the orders classifyOrder calls doubtful", async () => {
    const instant = fc.integer({ min: Date.parse("2020-01-01T00:00:00.000Z"), max: Date.parse("2035-01-01T00:00:00.000Z") });
    const grace = fc.integer({ min: 0, max: 3_600_000 });
    await fc.assert(
      fc.asyncProperty(
        instant,
        grace,
        fc.array(fc.record({ state: fc.constantFrom(...ORDER_STATES), offset: fc.integer({ min: -7_200_000, max: 7_200_000 }), nearEdge: fc.boolean() }), {
          maxLength: 12,
        }),
        async (nowMs, g, drawn) => {
          const at = new Date(nowMs);
          // Half the orders sit within a few ms of the grace edge, where an off-by-one would show.
          const cases = drawn.map((d) => ({ state: d.state, agoMs: d.nearEdge ? g + (d.offset % 3) : d.offset }));
          writeOrders(cases, at);
          const expected = expectedDoubtful(cases, at, g);
          expect(doubtfulBySql(at, g)).toEqual(expected);
          const n = expected.length;
          expect(await queryCounts(at, g)).toEqual({ clearChecklist: n, overview: n, doubtfulList: n });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a doubtful order's history on the list", () => {
  it("sends its first events and its latest, oldest first, where the cut is, and how many it has in all", async () => {
    const now = new Date("2026-12-04T03:30:00.000Z");
    writeOrders(
      [
        { state: "unknown", agoMs: 60_000 },
        { state: "unknown", agoMs: 120_000 },
      ],
      now,
    );
    sqlite.prepare(`DELETE FROM order_events`).run();
    const event = sqlite.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, 'bot', ?)`);
    sqlite.transaction(() => {
      event.run("o0", "2026-12-04T03:00:00.000Z", "intent", "{}");
      for (let i = 0; i < 60; i++)
        event.run("o0", new Date(Date.parse("2026-12-04T03:00:01.000Z") + i * 15_000).toISOString(), "error", `{"during":"lookup","n":${i}}`);
      event.run("o1", "2026-12-04T03:00:00.000Z", "intent", "{}");
      event.run("o1", "2026-12-04T03:00:01.000Z", "timeout", "{}");
    })();
    const { orders } = await listDoubtfulOrders({ db: drizzle(sqlite, { schema }), now, graceMs: 30_000 });
    const long = orders.find((o) => o.clientOrderId === "o0")!;
    // Its first ten (the intent, how it became doubtful) and its latest 50: one event left out between them.
    expect(long.events).toHaveLength(60);
    expect(long.eventsTotal).toBe(61);
    expect(long.eventsCutAfter).toBe(10);
    expect(long.events[0]!.kind).toBe("intent");
    expect(JSON.parse(long.events[9]!.detail)).toEqual({ during: "lookup", n: 8 });
    expect(JSON.parse(long.events[10]!.detail)).toEqual({ during: "lookup", n: 10 });
    expect(JSON.parse(long.events.at(-1)!.detail)).toEqual({ during: "lookup", n: 59 });
    const short = orders.find((o) => o.clientOrderId === "o1")!;
    expect(short.events.map((e) => e.kind)).toEqual(["intent", "timeout"]);
    expect(short.eventsTotal).toBe(2);
    expect(short.eventsCutAfter).toBeNull();
  });
});
