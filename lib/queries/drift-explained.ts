import "server-only";
/**
 * The link between a drift and the doubtful orders that would explain it (lib/reconcile/
 * drift-explained.ts), for the overview's and the symbol page's drifting lines and for the
 * doubtful list's cards. The doubtful orders are read once per screen through the journal's
 * partial index of unsettled orders, so the cost follows the number of open orders, never the
 * history; the lines come from the screen itself or from one latest_positions seek each.
 */
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import type { OrderSide } from "../journal/contract";
import { doubtfulCutoff, doubtfulOrderSql } from "../journal/order-state";
import { explainDrift, type DriftExplanation, type ExplainingOrder } from "../reconcile/drift-explained";
import { readCurrentBookLine } from "./book-line";

/** A drift's explanation with the bot it belongs to, so a screen can link to its doubtful orders. */
export interface DriftExplainedBy extends DriftExplanation {
  botId: string;
}

/** On a doubtful order's card: the drift its fill would explain, with the other orders it takes. */
export interface DriftItMayExplain {
  symbol: string;
  ours: number;
  theirs: number;
  /** Every order of the explanation, this one included. */
  clientOrderIds: string[];
}

/** Far above any real incident; keeps a journal full of doubt from making a poll unbounded. */
const MAX_DOUBTFUL = 1_000;

/** Exported for the test that reads its plan: the partial index of unsettled orders, never the whole table. */
export const DOUBTFUL_SIZES_SQL = (oneBot: boolean, dialect: Dialect = "sqlite") => `
  SELECT bot_id AS botId, symbol, client_order_id AS clientOrderId, side, qty, filled_qty AS filledQty
  FROM orders
  WHERE ${doubtfulOrderSql({ state: "state", updatedAt: "updated_at", cutoffParam: "?", dialect })}${oneBot ? " AND bot_id = ?" : ""}
  ORDER BY created_at, client_order_id
  LIMIT ${MAX_DOUBTFUL}`;

const SIZES_SQL = {
  sqlite: { all: DOUBTFUL_SIZES_SQL(false, "sqlite"), one: DOUBTFUL_SIZES_SQL(true, "sqlite") },
  postgres: { all: DOUBTFUL_SIZES_SQL(false, "postgres"), one: DOUBTFUL_SIZES_SQL(true, "postgres") },
};

const key = (botId: string, symbol: string) => `${botId}\u0000${symbol}`;

/** Doubtful orders, by bot and symbol, oldest first. */
export class DoubtfulSizes {
  private constructor(private readonly bySymbol: ReadonlyMap<string, ExplainingOrder[]>) {}

  static async read(params: { db: JournalDb | Database.Database | JournalQuery; now: Date; graceMs: number; botId?: string | null }): Promise<DoubtfulSizes> {
    const cutoff = doubtfulCutoff({ now: params.now, graceMs: params.graceMs });
    const q = queryOf(params.db);
    type Row = ExplainingOrder & { botId: string; symbol: string; side: OrderSide };
    const rows = params.botId ? await q.all<Row>(SIZES_SQL[q.dialect].one, [cutoff, params.botId]) : await q.all<Row>(SIZES_SQL[q.dialect].all, [cutoff]);
    const bySymbol = new Map<string, ExplainingOrder[]>();
    for (const { botId, symbol, clientOrderId, side, qty, filledQty } of rows) {
      const k = key(botId, symbol);
      const list = bySymbol.get(k) ?? [];
      list.push({ clientOrderId, side, qty, filledQty });
      bySymbol.set(k, list);
    }
    return new DoubtfulSizes(bySymbol);
  }

  /** Which doubtful orders of the bot on this symbol would explain the line's drift; null if none. */
  explain(botId: string, symbol: string, line: { ours: number; theirs: number; qtyStep: number }): DriftExplainedBy | null {
    const orders = this.bySymbol.get(key(botId, symbol));
    if (!orders) return null;
    const found = explainDrift(line, orders);
    return found && { botId, ...found };
  }

  /** The bot/symbol pairs that have doubtful orders. */
  pairs(): { botId: string; symbol: string }[] {
    return [...this.bySymbol.keys()].map((k) => {
      const [botId = "", symbol = ""] = k.split("\u0000");
      return { botId, symbol };
    });
  }
}

/**
 * Each drifting line that the bot's doubtful orders on its symbol would explain, keyed like the
 * lines themselves; one latest_positions seek per bot and symbol with doubtful orders.
 */
export async function getDriftsDoubtfulOrdersMayExplain(params: {
  db: JournalDb | JournalQuery;
  now: Date;
  graceMs: number;
  botId?: string | null;
}): Promise<Map<string, DriftItMayExplain>> {
  const doubtful = await DoubtfulSizes.read(params);
  const out = new Map<string, DriftItMayExplain>();
  const pairs = doubtful.pairs();
  const lines = await Promise.all(pairs.map(({ botId, symbol }) => readCurrentBookLine({ db: params.db, botId, symbol })));
  for (const [i, { botId, symbol }] of pairs.entries()) {
    const line = lines[i];
    if (!line) continue;
    const found = doubtful.explain(botId, symbol, line);
    if (!found) continue;
    const link = { symbol, ours: line.ours, theirs: line.theirs, clientOrderIds: found.clientOrderIds };
    for (const id of found.clientOrderIds) out.set(id, link);
  }
  return out;
}
