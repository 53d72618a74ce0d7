/**
 * Every read query of the console, run on the journal each named demo scenario writes, and checked
 * against the journal itself with plain SQL: what the screens say must be what the file says.
 */
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SCENARIO_NAMES, SCENARIOS, type ScenarioName, type ScenarioResult } from "@/tools/demo/scenarios";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { SETTLED_STATES, type OrderState } from "@/lib/journal/contract";
import { classifyOrder } from "@/lib/journal/order-state";
import { listAudit } from "@/lib/queries/audit";
import { getBotClearView } from "@/lib/queries/bot-clear";
import { getBreakerBoard } from "@/lib/queries/breakers";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { getOverview } from "@/lib/queries/overview";
import { getSymbolChart } from "@/lib/queries/symbol-chart";
import { listSymbolOrders } from "@/lib/queries/symbol";
import { classifyDrift } from "@/lib/reconcile/diff";
import { consoleDb } from "../helpers/console-db";
import { migratedJournal, migrationsDir } from "../helpers/journal";

const config = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000, twoPersonClear: false };
const closers: (() => void)[] = [];
afterAll(() => closers.forEach((c) => c()));

async function journalOf(
  name: ScenarioName,
): Promise<{ result: ScenarioResult; raw: Database.Database; db: ReturnType<typeof consoleDb>["db"]; sqlite: Database.Database; now: Date }> {
  const result = await SCENARIOS[name].run({ file: migratedJournal(`reads-${name}`), migrationsDir });
  const raw = new Database(result.file, { readonly: true });
  const c = consoleDb(result.file);
  closers.push(() => raw.close(), c.close);
  // Read a moment after the scenario's last cycle, as an operator watching it would.
  return { result, raw, db: c.db, sqlite: (c.db as unknown as { $client: Database.Database }).$client, now: new Date(Date.parse(result.to) + 1_000) };
}

describe.each(SCENARIO_NAMES)("the console's reads of scenario %s", (name) => {
  let j: Awaited<ReturnType<typeof journalOf>>;
  it("run the scenario", async () => {
    j = await journalOf(name);
    expect(j.result.bots.length).toBeGreaterThan(0);
  });

  it("overview: each bot's halt matches the breaker, each line the latest compared cycle", async () => {
    const o = await getOverview({ db: j.db, now: j.now, ...config });
    for (const outcome of j.result.bots) {
      const bot = o.bots.find((b) => b.botId === outcome.botId)!;
      expect(bot.breaker?.halted).toBe(outcome.halted);
      expect(bot.status === "halted").toBe(outcome.halted);
      const latest = j.raw
        .prepare(`SELECT id FROM reconciliations WHERE bot_id = ? AND outcome IN ('clean','drift') ORDER BY at DESC, id DESC LIMIT 1`)
        .pluck()
        .get(outcome.botId) as number | undefined;
      if (latest === undefined) continue;
      const rows = j.raw.prepare(`SELECT symbol, ours, theirs, qty_step AS qtyStep FROM reconciliation_positions WHERE reconciliation_id = ?`).all(latest) as {
        symbol: string;
        ours: number;
        theirs: number;
        qtyStep: number;
      }[];
      for (const r of rows) {
        const line = o.lines.find((l) => l.botId === outcome.botId && l.symbol === r.symbol)!;
        expect(line).toMatchObject({ ours: r.ours, theirs: r.theirs, drift: classifyDrift(r) });
      }
      expect(bot.symbolsInDrift).toBe(rows.filter((r) => classifyDrift(r) !== "none").length);
    }
  });

  it("doubtful orders: exactly the unknown orders and the stale created/sent ones", async () => {
    const { orders, total } = await listDoubtfulOrders({ db: j.db, now: j.now, graceMs: config.doubtfulGraceMs });
    const cutoff = new Date(j.now.getTime() - config.doubtfulGraceMs).toISOString();
    const expected = j.raw
      .prepare(`SELECT client_order_id FROM orders WHERE state = 'unknown' OR (state IN ('created','sent') AND updated_at < ?) ORDER BY client_order_id`)
      .pluck()
      .all(cutoff);
    expect(total).toBe(expected.length);
    expect(orders.map((o) => o.clientOrderId).sort()).toEqual(expected);
    for (const o of orders) expect(o.idCheck.kind).toBe("ok"); // the demo's ids all recompute
  });

  it("breaker board: every trip and clear, with the cycle that caused each trip", async () => {
    const board = await getBreakerBoard({ db: j.db, now: j.now, ...config, pageSize: 500 });
    const events = j.raw.prepare(`SELECT bot_id AS botId, kind, reconciliation_id AS rid FROM breaker_events ORDER BY id`).all() as {
      botId: string;
      kind: string;
      rid: number | null;
    }[];
    for (const outcome of j.result.bots) {
      const view = board.bots.find((b) => b.botId === outcome.botId)!;
      expect(view.events.map((e) => e.kind).reverse()).toEqual(events.filter((e) => e.botId === outcome.botId).map((e) => e.kind));
    }
  });

  it("incident timeline: every row of every source in the scenario's window, in time order", async () => {
    const window = { from: j.result.from, to: new Date(j.now.getTime() + 60_000).toISOString() };
    const t = getIncidentTimeline({ db: j.db, window, filters: { bot: null, kinds: [...INCIDENT_KINDS] } });
    const count = (sql: string) => j.raw.prepare(sql).pluck().get(window.from, window.to) as number;
    const expected =
      count(`SELECT count(*) FROM order_events WHERE at >= ? AND at < ?`) +
      count(`SELECT count(*) FROM reconciliations WHERE at >= ? AND at < ?`) +
      count(`SELECT count(*) FROM breaker_events WHERE at >= ? AND at < ?`) +
      count(`SELECT count(*) FROM audit_log WHERE at >= ? AND at < ?`);
    expect(t.capped).toBe(false);
    expect(t.events.length).toBe(expected);
    const times = t.events.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
  });

  it("symbol charts: a drift episode wherever the journal has a drifting cycle, and none elsewhere", async () => {
    const pairs = j.raw
      .prepare(`SELECT DISTINCT r.bot_id AS botId, p.symbol FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id`)
      .all() as { botId: string; symbol: string }[];
    for (const { botId, symbol } of pairs) {
      const range = { kind: "custom" as const, from: new Date(Date.parse(j.result.from) - 1_000).toISOString(), to: j.now.toISOString() };
      const chart = getSymbolChart({ db: j.db, botId, symbol, range, now: j.now });
      const drifting = j.raw
        .prepare(
          `SELECT count(*) FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id WHERE r.bot_id = ? AND p.symbol = ? AND abs(p.ours - p.theirs) >= p.qty_step / 2.0`,
        )
        .pluck()
        .get(botId, symbol) as number;
      expect(chart.points.length).toBeGreaterThan(0);
      expect(chart.points.length).toBeLessThanOrEqual(2_000);
      expect(chart.episodes.length > 0, `${botId} ${symbol}`).toBe(drifting > 0);
      const orders = listSymbolOrders({ db: j.db, botId, symbol, limit: 200, now: j.now, doubtfulGraceMs: config.doubtfulGraceMs });
      expect(orders.orders.length).toBe(j.raw.prepare(`SELECT count(*) FROM orders WHERE bot_id = ? AND symbol = ?`).pluck().get(botId, symbol));
    }
  });

  it("bot pages: a clear checklist that is unmet exactly where the journal says so", async () => {
    for (const outcome of j.result.bots) {
      const view = (await getBotClearView({ db: j.db, botId: outcome.botId, now: j.now, ...config }))!;
      const doubtful = view.items.find((i) => i.key === "doubtful")!;
      const unknown = j.raw.prepare(`SELECT count(*) FROM orders WHERE bot_id = ? AND state = 'unknown'`).pluck().get(outcome.botId) as number;
      const unsettled = j.raw
        .prepare(`SELECT count(*) FROM orders WHERE bot_id = ? AND state NOT IN (${SETTLED_STATES.map((s) => `'${s}'`).join(",")})`)
        .pluck()
        .get(outcome.botId) as number;
      const orders = j.raw.prepare(`SELECT state, updated_at AS updatedAt FROM orders WHERE bot_id = ?`).all(outcome.botId) as {
        state: OrderState;
        updatedAt: string;
      }[];
      const doubtfulOrders = orders.filter((o) => classifyOrder(o, { now: j.now, graceMs: config.doubtfulGraceMs }) === "doubtful").length;
      // Unmet exactly while an order is doubtful: always with an unknown order, never with every order settled.
      expect(doubtful.met, outcome.botId).toBe(doubtfulOrders === 0);
      expect(doubtfulOrders).toBeGreaterThanOrEqual(unknown);
      expect(doubtfulOrders).toBeLessThanOrEqual(unsettled);
    }
  });

  it("audit log: what the journal holds, newest first", async () => {
    const view = await listAudit({ db: j.db });
    const n = j.raw.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
    expect(view.head.entries).toBe(n);
    expect(view.entries.map((e) => e.id)).toEqual([...view.entries.map((e) => e.id)].sort((a, b) => b - a));
  });
});
