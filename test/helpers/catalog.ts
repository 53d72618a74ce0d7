/**
 * The journal's shape as each engine's own catalog reports it, normalised so that the same contract
 * reads the same on both: SQLite's `integer`/`real`/`text` and PostgreSQL's
 * `bigint`/`double precision`/`text` become integer/real/text; an `integer PRIMARY KEY` (rowid) and
 * an identity column are both "generated"; check and partial-index expressions lose quotes, table
 * prefixes, casts and PostgreSQL's `= ANY (ARRAY[…])` spelling of `in (…)`. Nothing is read from the
 * schema files: only from sqlite_master, the pragmas, information_schema and pg_catalog.
 */
import type Database from "better-sqlite3";
import type { ClientBase } from "pg";

export interface ColumnShape {
  type: "integer" | "real" | "text" | string;
  notNull: boolean;
  default: string | null;
  generated: boolean;
}
export interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  unique: string[][];
  foreignKeys: string[];
  checks: Record<string, string>;
  indexes: Record<string, { columns: string[]; unique: boolean; where: string | null }>;
}
export type Catalog = Record<string, TableShape>;

const TYPES: Record<string, string> = { integer: "integer", bigint: "integer", smallint: "integer", real: "real", "double precision": "real", text: "text" };
const normType = (t: string) => TYPES[t.toLowerCase()] ?? `unmapped:${t}`;

/** A check or predicate expression in one spelling for both engines. */
export function normExpr(expr: string): string {
  return expr
    .replace(/^CHECK\s*/i, "")
    .replace(/::(text|double precision|bigint|integer|smallint|numeric)(\[\])?/gi, "")
    .replace(/\s*=\s*ANY\s*\(\s*ARRAY\[/gi, " in (")
    .replace(/\s*<>\s*ALL\s*\(\s*ARRAY\[/gi, " not in (")
    .replace(/[\]()"`]/g, "")
    .replace(/\b[a-z_]+\.(?=[a-z_])/gi, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

const normDefault = (d: string | null) => (d === null ? null : d.replace(/::[a-z ]+$/i, "").replace(/^'(.*)'$/, "$1"));

export function sqliteCatalog(db: Database.Database): Catalog {
  const out: Catalog = {};
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as {
    name: string;
    sql: string;
  }[];
  for (const { name, sql } of tables) {
    const cols = db.prepare(`SELECT * FROM pragma_table_info(?)`).all(name) as {
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const rowid = pk.length === 1 && pk[0]?.type.toUpperCase() === "INTEGER" && !/WITHOUT ROWID/i.test(sql);
    const columns: Record<string, ColumnShape> = {};
    for (const c of cols) {
      // SQLite lets a non-integer PRIMARY KEY column hold NULL unless it says NOT NULL; a rowid never is.
      columns[c.name] = {
        type: normType(c.type),
        notNull: c.notnull === 1 || (rowid && c.pk === 1),
        default: normDefault(c.dflt_value),
        generated: rowid && c.pk === 1,
      };
    }
    const idx = db.prepare(`SELECT * FROM pragma_index_list(?)`).all(name) as { name: string; unique: number; origin: string; partial: number }[];
    const idxCols = (i: string) => (db.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(i) as { name: string }[]).map((r) => r.name);
    const indexes: TableShape["indexes"] = {};
    for (const i of idx.filter((i) => i.origin === "c")) {
      const def = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(i.name) as { sql: string }).sql;
      const where = /\bWHERE\b([\s\S]*)$/i.exec(def)?.[1] ?? null;
      indexes[i.name] = { columns: idxCols(i.name), unique: i.unique === 1, where: where === null ? null : normExpr(where) };
    }
    const checks: Record<string, string> = {};
    for (const [, check, expr] of sql.matchAll(/CONSTRAINT\s+"([^"]+)"\s+CHECK\s*\(([\s\S]*?)\)\s*(?:,|\n\))/g))
      if (check && expr) checks[check] = normExpr(expr);
    const fks = db.prepare(`SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq`).all(name) as { from: string; table: string; to: string }[];
    out[name] = {
      columns,
      primaryKey: pk.map((c) => c.name),
      unique: idx.filter((i) => i.origin === "u").map((i) => idxCols(i.name)),
      foreignKeys: fks.map((f) => `${f.from} -> ${f.table}.${f.to}`),
      checks,
      indexes,
    };
  }
  return out;
}

export async function pgCatalog(client: ClientBase, opts: { exclude?: string[] } = {}): Promise<Catalog> {
  const out: Catalog = {};
  const q = async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows as T[];
  const tables = await q<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  for (const { name } of tables.filter((t) => !opts.exclude?.includes(t.name))) {
    const cols = await q<{ name: string; type: string; nullable: string; dflt: string | null; identity: string }>(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt, is_identity AS identity
         FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [name],
    );
    const columns: Record<string, ColumnShape> = {};
    for (const c of cols)
      columns[c.name] = { type: normType(c.type), notNull: c.nullable === "NO", default: normDefault(c.dflt), generated: c.identity === "YES" };
    const cons = await q<{ name: string; type: string; cols: string[]; def: string }>(
      `SELECT c.conname AS name, c.contype AS type, pg_get_constraintdef(c.oid) AS def,
              array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS cols
         FROM pg_constraint c WHERE c.conrelid = to_regclass($1) ORDER BY c.conname`,
      [name],
    );
    const idx = await q<{ name: string; unique: boolean; cols: string[]; pred: string | null }>(
      `SELECT ic.relname AS name, i.indisunique AS unique, pg_get_expr(i.indpred, i.indrelid) AS pred,
              array(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS cols
         FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
        WHERE i.indrelid = to_regclass($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        ORDER BY 1`,
      [name],
    );
    const indexes: TableShape["indexes"] = {};
    for (const i of idx) indexes[i.name] = { columns: i.cols, unique: i.unique, where: i.pred === null ? null : normExpr(i.pred) };
    const checks: Record<string, string> = {};
    for (const c of cons.filter((c) => c.type === "c")) checks[c.name] = normExpr(c.def);
    out[name] = {
      columns,
      primaryKey: cons.find((c) => c.type === "p")?.cols ?? [],
      unique: cons.filter((c) => c.type === "u").map((c) => c.cols),
      foreignKeys: cons
        .filter((c) => c.type === "f")
        .map((c) => `${c.cols.join(",")} -> ${/REFERENCES\s+(\S+)\((.*)\)/.exec(c.def)?.slice(1).join(".") ?? c.def}`),
      checks,
      indexes,
    };
  }
  return out;
}

/** Each difference on one line ("orders.columns.qty.type: sqlite real, postgres integer"), for a failure message. */
export function catalogDiff(a: unknown, b: unknown, names: [string, string], at = ""): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => catalogDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], names, at ? `${at}.${k}` : k));
  }
  const show = (v: unknown) => (v === undefined ? "(missing)" : JSON.stringify(v));
  return [`${at}: ${names[0]} ${show(a)}, ${names[1]} ${show(b)}`];
}
