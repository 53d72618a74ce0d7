/** Reading what the demo bots wrote: small typed queries over a real journal file, read-only. */
import Database from "better-sqlite3";
import { expect } from "vitest";
import type { BotOutcome, ScenarioResult } from "@/tools/demo/scenarios";

export interface OrderRow {
  client_order_id: string;
  bot_id: string;
  strategy: string;
  symbol: string;
  side: "buy" | "sell";
  qty: number;
  bar: string;
  state: string;
  filled_qty: number;
  avg_price: number | null;
  attempts: number;
  created_at: string;
  updated_at: string;
}

export interface ReconciliationRow {
  id: number;
  bot_id: string;
  at: string;
  outcome: string;
  orders_in_flight: number;
}

export interface BreakerEventRow {
  id: number;
  bot_id: string;
  at: string;
  kind: string;
  reason: string;
  actor: string;
  reconciliation_id: number | null;
}

export class JournalView {
  private readonly db: Database.Database;
  constructor(file: string) {
    this.db = new Database(file, { readonly: true });
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.db.prepare(sql).all(...params) as T[];
  }

  orders(botId: string, where = "1", ...params: unknown[]): OrderRow[] {
    return this.all<OrderRow>(`SELECT * FROM orders WHERE bot_id = ? AND (${where}) ORDER BY created_at, rowid`, botId, ...params);
  }

  events(id: string): { kind: string; at: string; detail: Record<string, unknown> }[] {
    return this.all<{ kind: string; at: string; detail: string }>(`SELECT kind, at, detail FROM order_events WHERE client_order_id = ? ORDER BY id`, id).map(
      (e) => ({
        ...e,
        detail: JSON.parse(e.detail) as Record<string, unknown>,
      }),
    );
  }

  reconciliations(botId: string): ReconciliationRow[] {
    return this.all<ReconciliationRow>(`SELECT id, bot_id, at, outcome, orders_in_flight FROM reconciliations WHERE bot_id = ? ORDER BY id`, botId);
  }

  positions(reconciliationId: number): { symbol: string; ours: number; theirs: number; qty_step: number }[] {
    return this.all(`SELECT symbol, ours, theirs, qty_step FROM reconciliation_positions WHERE reconciliation_id = ? ORDER BY symbol`, reconciliationId);
  }

  breakerEvents(botId?: string): BreakerEventRow[] {
    return botId === undefined
      ? this.all<BreakerEventRow>(`SELECT * FROM breaker_events ORDER BY id`)
      : this.all<BreakerEventRow>(`SELECT * FROM breaker_events WHERE bot_id = ? ORDER BY id`, botId);
  }

  close(): void {
    this.db.close();
  }
}

export function outcomeOf(result: ScenarioResult, botId: string): BotOutcome {
  const bot = result.bots.find((b) => b.botId === botId);
  if (!bot) throw new Error(`no bot ${botId} in the scenario's result`);
  return bot;
}

/** The bot next to the incident: every reconciliation clean, never tripped, both books equal. */
export function expectUntouched(view: JournalView, result: ScenarioResult, botId: string): void {
  const bot = outcomeOf(result, botId);
  expect(bot.halted).toBe(false);
  expect(view.breakerEvents(botId)).toEqual([]);
  const outcomes = new Set(view.reconciliations(botId).map((r) => r.outcome));
  expect([...outcomes]).toEqual(["clean"]);
  expectBooksAgree(bot);
  expect(view.orders(botId, "state <> 'filled'")).toEqual([]);
}

/** Both sides hold the same per symbol (the book is a sum of fills: allow float dust, not a step). */
export function expectBooksAgree(bot: BotOutcome): void {
  expect(Object.keys(bot.exchange).sort()).toEqual(Object.keys(bot.book).sort());
  for (const [symbol, theirs] of Object.entries(bot.exchange)) {
    expect({ symbol, ours: Number(bot.book[symbol]!.toFixed(9)) + 0 }).toEqual({ symbol, ours: theirs });
  }
}
