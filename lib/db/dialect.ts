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

/** The texts of a JSON array of whole numbers bound as one parameter, as a set of integers for `IN (…)`. */
export function jsonIntArraySql(dialect: Dialect, param: string): string {
  return dialect === "sqlite" ? `SELECT value FROM json_each(${param})` : `SELECT json_array_elements_text(${param}::json)::bigint`;
}

/** The greatest of several values: SQLite's many-argument max, PostgreSQL's GREATEST. */
export function greatestSql(dialect: Dialect, values: string[]): string {
  return `${dialect === "sqlite" ? "max" : "GREATEST"}(${values.join(", ")})`;
}

/** Where `needle` first occurs in `text`, from 1, or 0: SQLite's instr, PostgreSQL's strpos. */
export function positionSql(dialect: Dialect, text: string, needle: string): string {
  return `${dialect === "sqlite" ? "instr" : "strpos"}(${text}, ${needle})`;
}

/**
 * A column compared without its index: SQLite's unary `+`, which keeps its planner on a better
 * index (the reasons are where it is used); PostgreSQL's planner weighs the indexes by their
 * statistics, and a `+` on text is an error there, so the column is left as it is.
 */
export function unindexedSql(dialect: Dialect, column: string): string {
  return dialect === "sqlite" ? `+${column}` : column;
}
