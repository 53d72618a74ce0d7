/**
 * What a bot's connection confirmed: every committed write transaction, and the rowid of every row
 * those commits inserted. The soak reads the journal afterwards and looks for each of those rows,
 * so a "lost row" means one the bot was told was on disk and is not.
 *
 * It wraps a better-sqlite3 connection instead of instrumenting the writer, so the bot library runs
 * unchanged: a commit is counted when the outermost transaction function returns, or when a write
 * statement returns outside any transaction (autocommit, as the heartbeat does). Rows inserted by a
 * transaction that rolled back are dropped with it.
 */
import type Database from "better-sqlite3";

/** The journal tables whose inserted rows the soak checks. Upserts into bots/breakers are not rows lost or found. */
export const LEDGER_TABLES = ["orders", "order_events", "reconciliations", "reconciliation_positions", "breaker_events"] as const;
export type LedgerTable = (typeof LEDGER_TABLES)[number];

export interface WriteLedger {
  /** Committed write transactions (explicit or autocommit). */
  commits: number;
  /** Rowids of committed inserts, per table. */
  rows: Record<LedgerTable, number[]>;
  /** How long each committed write took, BEGIN to COMMIT, busy waits included. */
  commitMs: number[];
}

export function emptyLedger(): WriteLedger {
  return { commits: 0, rows: { orders: [], order_events: [], reconciliations: [], reconciliation_positions: [], breaker_events: [] }, commitMs: [] };
}

const INSERT_INTO = /^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+[`"[]?(\w+)/i;

function ledgerTable(sql: string): LedgerTable | null {
  const m = INSERT_INTO.exec(sql);
  const table = m?.[1]?.toLowerCase();
  return table && (LEDGER_TABLES as readonly string[]).includes(table) ? (table as LedgerTable) : null;
}

type TxFn = ((...args: unknown[]) => unknown) & {
  deferred: (...args: unknown[]) => unknown;
  immediate: (...args: unknown[]) => unknown;
  exclusive: (...args: unknown[]) => unknown;
};

/** A connection that behaves like `db` and records what it committed into `ledger`. */
export function ledgerConnection(db: Database.Database, ledger: WriteLedger): Database.Database {
  let pending: { table: LedgerTable; rowid: number }[] = [];
  const commit = (startedAt: number) => {
    ledger.commits++;
    ledger.commitMs.push(performance.now() - startedAt);
    for (const p of pending) ledger.rows[p.table].push(p.rowid);
    pending = [];
  };

  const wrapStatement = (stmt: Database.Statement): Database.Statement => {
    if (stmt.reader) return stmt;
    const table = ledgerTable(stmt.source);
    return new Proxy(stmt, {
      get(target, prop, receiver) {
        if (prop !== "run") {
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return (...args: unknown[]) => {
          const startedAt = performance.now();
          const info = target.run(...args);
          if (table && info.changes === 1) pending.push({ table, rowid: Number(info.lastInsertRowid) });
          if (!db.inTransaction) commit(startedAt);
          return info;
        };
      },
    });
  };

  const wrapTransaction = (fn: (...args: unknown[]) => unknown): TxFn => {
    const tx = db.transaction(fn) as unknown as TxFn;
    const around =
      (run: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        const outermost = !db.inTransaction;
        if (outermost) pending = [];
        const startedAt = performance.now();
        try {
          const result = run(...args);
          if (outermost) commit(startedAt);
          return result;
        } catch (error) {
          if (outermost) pending = [];
          throw error;
        }
      };
    const wrapped = around(tx) as TxFn;
    wrapped.deferred = around(tx.deferred);
    wrapped.immediate = around(tx.immediate);
    wrapped.exclusive = around(tx.exclusive);
    return wrapped;
  };

  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === "prepare") return (sql: string) => wrapStatement(target.prepare(sql));
      if (prop === "transaction") return wrapTransaction;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
