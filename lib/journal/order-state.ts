import { SETTLED_STATES, type OrderState } from "./contract";

export type OrderClass = "settled" | "doubtful" | "live";

const settled: ReadonlySet<OrderState> = new Set(SETTLED_STATES);

/** Doubtful whatever its age: the send's outcome could not be proven. */
export const ALWAYS_DOUBTFUL_STATES = ["unknown"] as const satisfies readonly OrderState[];
/** Doubtful once left without an update for longer than the grace period. */
export const DOUBTFUL_AFTER_GRACE_STATES = ["created", "sent"] as const satisfies readonly OrderState[];

const alwaysDoubtful: ReadonlySet<OrderState> = new Set(ALWAYS_DOUBTFUL_STATES);
const doubtfulAfterGrace: ReadonlySet<OrderState> = new Set(DOUBTFUL_AFTER_GRACE_STATES);

/**
 * A journal time as docs/journal.md writes it: UTC, milliseconds, `Z`. Only such text compares as
 * time (the SQL below compares text); anything else is no proof of freshness.
 */
export const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The same pattern for SQLite's GLOB, which has no `\d` and reads `.` literally. */
const CANONICAL_TIME_GLOB = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z";
/** And for PostgreSQL, which has no GLOB: the same pattern as an anchored regular expression. */
const CANONICAL_TIME_REGEX = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$";

/**
 * settled: final on the exchange. doubtful: nobody knows whether the exchange has it, so a person
 * or a lookup must settle it: `unknown` always, and `created`/`sent` left without an update for
 * longer than the grace period (the bot died between the intent and the reply). live: the rest.
 */
export function classifyOrder(order: { state: OrderState; updatedAt: string }, opts: { now: Date; graceMs: number }): OrderClass {
  if (settled.has(order.state)) return "settled";
  if (alwaysDoubtful.has(order.state)) return "doubtful";
  if (doubtfulAfterGrace.has(order.state)) {
    // A time outside the contract is not proof of freshness, even one Date.parse would read
    // (it reads "2026-08-10 15:31:02" as local time): the SQL side must be able to agree.
    if (!CANONICAL_TIME.test(order.updatedAt)) return "doubtful";
    const updated = Date.parse(order.updatedAt);
    if (Number.isNaN(updated) || opts.now.getTime() - updated > opts.graceMs) return "doubtful";
  }
  return "live";
}

/**
 * The grace rule as the SQL side reads it: an order last updated before this instant is past its
 * grace. Journal times are canonical ISO-8601 text (docs/journal.md), so comparing the text
 * `updated_at < cutoff` is the same test as classifyOrder's `now - updatedAt > graceMs`. Outside the
 * contract the two can differ: classifyOrder calls an unparseable time doubtful, while the text
 * comparison reads it by its characters. So both call a time outside the contract doubtful.
 */
export function doubtfulCutoff(opts: { now: Date; graceMs: number }): string {
  return new Date(opts.now.getTime() - opts.graceMs).toISOString();
}

const quoted = (states: readonly string[]) => states.map((s) => `'${s}'`).join(", ");

/**
 * classifyOrder(...) === "doubtful" as a SQL condition, for the queries that count or list doubtful
 * orders without reading every order: one definition, so the clear checklist, the overview and the
 * doubtful list cannot disagree with the symbol page. `cutoffParam` is the placeholder the caller
 * binds to doubtfulCutoff() (`?` for a positional parameter). The `NOT IN` settled states lets
 * SQLite use the journal's partial index of unsettled orders. Agreement with classifyOrder is
 * tested against a real journal (test/integration/doubtful-sql.test.ts).
 */
export function doubtfulOrderSql(cols: { state: string; updatedAt: string; cutoffParam: string; dialect?: "sqlite" | "postgres" }): string {
  const { state, updatedAt, cutoffParam } = cols;
  const notCanonical = cols.dialect === "postgres" ? `${updatedAt} !~ '${CANONICAL_TIME_REGEX}'` : `${updatedAt} NOT GLOB '${CANONICAL_TIME_GLOB}'`;
  return (
    `${state} NOT IN (${quoted(SETTLED_STATES)}) AND (${state} IN (${quoted(ALWAYS_DOUBTFUL_STATES)})` +
    ` OR (${state} IN (${quoted(DOUBTFUL_AFTER_GRACE_STATES)}) AND (${updatedAt} < ${cutoffParam} OR ${notCanonical})))`
  );
}
