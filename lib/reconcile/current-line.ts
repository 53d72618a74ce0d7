/**
 * Which book line is current. The journal's latest_positions keeps, per bot and symbol, the last
 * cycle that mentioned the symbol; a cycle only lists the symbols either side holds, so a later
 * compared cycle that left the symbol out saw it flat on both sides (docs/journal.md). The
 * overview, the symbol page and the acknowledge action all read a line through this one rule.
 */
import type { ReconciliationOutcome } from "../journal/contract";

/** The outcomes of a cycle that compared the books: a skipped or failed cycle says nothing about them. */
export const COMPARED_OUTCOMES = ["clean", "drift"] as const satisfies readonly ReconciliationOutcome[];

/** Whether a cycle's outcome compared the books (COMPARED_OUTCOMES). */
export const comparedTheBooks = (outcome: string): boolean => (COMPARED_OUTCOMES as readonly string[]).includes(outcome);

/** `('clean', 'drift')`, for `outcome IN …` in the queries that find a bot's latest compared cycle. */
export const COMPARED_OUTCOMES_SQL = `(${COMPARED_OUTCOMES.map((o) => `'${o}'`).join(", ")})`;

/**
 * "The bot's latest compared cycle" as a SQL scalar: the id of the newest reconciliation that
 * compared the books, for the bot named by `botIdSql` (a column of the caller's query). One
 * backward seek on reconciliations (bot_id, at). The overview, the book line the actions read and
 * the symbol page all take their latest cycle from here, so lineAsOfLatestCycle sees the same one.
 */
export function latestComparedCycleSql(botIdSql: string): string {
  return `(SELECT r.id FROM reconciliations r WHERE r.bot_id = ${botIdSql} AND r.outcome IN ${COMPARED_OUTCOMES_SQL} ORDER BY r.at DESC, r.id DESC LIMIT 1)`;
}

export interface StoredLine {
  /** The cycle that last mentioned the symbol, and its time. */
  reconciliationId: number;
  at: string;
  ours: number;
  theirs: number;
}

export interface LineAsOfLatest {
  /** The stored line is from the bot's latest compared cycle (or no compared cycle exists). */
  current: boolean;
  ours: number;
  theirs: number;
  /** The cycle the sizes are from: the stored one, or the later one that left the symbol out. */
  reconciliationId: number;
  at: string;
}

/**
 * The line as of the bot's latest compared cycle (`latest`, null when it has none): the stored
 * sizes when that cycle mentioned the symbol, flat on both sides when it left it out. `latest.at`
 * may be unknown to the caller; the stored time stands in for it then.
 */
export function lineAsOfLatestCycle(line: StoredLine, latest: { id: number; at: string | null } | null): LineAsOfLatest {
  const current = latest === null || line.reconciliationId >= latest.id;
  if (current) return { current, ours: line.ours, theirs: line.theirs, reconciliationId: line.reconciliationId, at: line.at };
  return { current, ours: 0, theirs: 0, reconciliationId: latest.id, at: latest.at ?? line.at };
}
