/**
 * The fragments where SQLite and PostgreSQL SQL differ, one function each (the doubtful rule's
 * time pattern lives with the rule, in lib/journal/order-state.ts), so a query is
 * written once and asks for the fragment by the handle's dialect (lib/db/query.ts).
 */
import type { Dialect } from "./query";

/** A JSON object as text: SQLite's json_object, PostgreSQL's json_build_object cast to text (so both parse it the same way). */
export function jsonObjectSql(dialect: Dialect, pairs: [string, string][]): string {
  const args = pairs.map(([k, v]) => `'${k}', ${v}`).join(", ");
  return dialect === "sqlite" ? `json_object(${args})` : `json_build_object(${args})::text`;
}

/**
 * `column` ordered as SQLite orders text (byte by byte): PostgreSQL's database collation may not, so
 * ids and symbols there are ordered `COLLATE "C"` (times are not: lib/actions/pg-actions.ts says why).
 */
export function byteOrder(dialect: Dialect, column: string): string {
  return dialect === "postgres" ? `${column} COLLATE "C"` : column;
}

/** The texts of a JSON array bound as one parameter, as a set for `IN (…)`: SQLite's json_each, PostgreSQL's json_array_elements_text. */
export function jsonTextArraySql(dialect: Dialect, param: string): string {
  return dialect === "sqlite" ? `SELECT value FROM json_each(${param})` : `SELECT json_array_elements_text(${param}::json)`;
}
