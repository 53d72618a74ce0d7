import "server-only";
/**
 * Correcting the bot's book for one symbol: the one way a size drift ends when the exchange is
 * right (a fill the bot never saw, a position moved by hand). The bot adds the correction's delta to
 * its book from its next cycle (docs/journal.md, "Book corrections"). The correction is the
 * operator's judgement of the drift they saw, so the same transaction acknowledges that drift: the
 * clear checklist needs no second form.
 */
import { z } from "zod";
import { SETTLED_STATES } from "../journal/contract";
import { botIdField, symbolField } from "../journal/ids";
import { formatUtc, signedQty } from "../text/format";
import { getCurrentBookLine, type CurrentBookLine } from "../queries/book-line";
import { pendingCorrection, type CorrectionRow } from "../queries/book-corrections";
import { driftTolerance } from "../reconcile/diff";
import { Refusal, type ActionSpec } from "./guard";
import { ACK_INSERT_SQL, ackOfLine } from "./acknowledge-drift";
import { noteField, seenSizeField } from "./text-field";

export const BOOK_CORRECTION_KINDS = ["adopt_exchange", "flattened_on_venue"] as const;
export type BookCorrectionKind = (typeof BOOK_CORRECTION_KINDS)[number];

const num = seenSizeField;

const schema = z.object({
  botId: botIdField,
  symbol: symbolField,
  kind: z.enum(BOOK_CORRECTION_KINDS, { error: "Choose how to correct the book: adopt the exchange's size, or flattened on the venue" }),
  /** The line the operator saw: the cycle and both sizes. */
  reconciliationId: z.coerce.number({ error: "Missing cycle" }).int().positive("Missing cycle"),
  ours: num("the bot's size"),
  theirs: num("the exchange's size"),
  note: noteField({ field: "note", ask: "Say what you checked on the venue" }),
});

/** What the bot's book becomes: the exchange's size, or flat. */
export function correctionDelta(kind: BookCorrectionKind, line: { ours: number; theirs: number }): number {
  return kind === "adopt_exchange" ? line.theirs - line.ours : -line.ours;
}

/** An order in one of these states may still fill: it may be the very difference. */
export const UNSETTLED_SQL = `state NOT IN (${SETTLED_STATES.map((s) => `'${s}'`).join(", ")})`;

export interface BookCorrected {
  correctionId: number;
  kind: BookCorrectionKind;
  before: number;
  after: number;
  delta: number;
  correctedAt: string;
}

type CorrectInput = z.infer<typeof schema>;

/** What the precondition of a correction reads, on either engine. */
export interface CorrectionFacts {
  line: CurrentBookLine | null;
  /** The symbol's latest correction the bot may not have counted yet. */
  pending: CorrectionRow | null;
  /** The bot's first unsettled order on the symbol. */
  unsettled: { id: string; state: string } | undefined;
  /** An order on the symbol that changed after the line's cycle (times on the bot's clock). */
  moved: { id: string; state: string } | undefined;
}

/** The precondition of a correction, on either engine. Returns the line to correct. */
export function checkCorrectable(input: CorrectInput, facts: CorrectionFacts, now: Date): CurrentBookLine {
  const { botId, symbol } = input;
  const line = facts.line;
  if (!line) {
    throw new Refusal("refused", `No book line for ${botId} ${symbol} in the journal: the bot never reconciled this symbol. Check the bot and the symbol.`);
  }
  // Before the sizes: a correction the bot has not counted yet leaves them as they were, and
  // a second correction of the same difference would be counted twice.
  const pending = facts.pending;
  if (pending) {
    throw new Refusal(
      "conflict",
      `${pending.correctedBy} already corrected ${botId} ${symbol} at ${formatUtc(pending.correctedAt, now)} (book ${signedQty(pending.ours)} → ${signedQty(pending.ours + pending.delta)}), and the bot has not counted it yet. Nothing was changed; wait for the bot's next cycle, then look again.`,
      [`correction #${pending.id} made on cycle #${pending.reconciliationId} is not counted yet`],
    );
  }
  const tolerance = driftTolerance(line.qtyStep);
  const changed: string[] = [];
  if (Math.abs(line.ours - input.ours) >= tolerance) changed.push(`the bot's book moved from ${signedQty(input.ours)} to ${signedQty(line.ours)}`);
  if (Math.abs(line.theirs - input.theirs) >= tolerance) {
    changed.push(`the exchange's position moved from ${signedQty(input.theirs)} to ${signedQty(line.theirs)}`);
  }
  if (changed.length > 0) {
    throw new Refusal(
      "conflict",
      `${botId} ${symbol} changed since you looked: ${changed.join(", and ")}. Nothing was changed; look at the new sizes and correct again if still needed.`,
      changed,
    );
  }
  if (line.drift === "none") {
    throw new Refusal("refused", `${botId} ${symbol} is in sync (book ${signedQty(line.ours)}, exchange ${signedQty(line.theirs)}): nothing to correct.`);
  }
  if (input.kind === "flattened_on_venue" && Math.abs(line.ours) < tolerance) {
    throw new Refusal(
      "refused",
      `The bot's book of ${symbol} is already 0: a flatten on the venue needs no correction. Once the exchange shows 0 too, the bot's next cycle is clean.`,
    );
  }
  const unsettled = facts.unsettled;
  if (unsettled) {
    throw new Refusal(
      "refused",
      `Order ${unsettled.id} on ${symbol} is ${unsettled.state}, not settled: it may be the very difference. Settle it first on /doubtful?bot=${encodeURIComponent(botId)}, then correct the book if it still drifts.`,
      [`order ${unsettled.id} is ${unsettled.state}`],
    );
  }
  // An order that settled after the cycle the operator saw moved the book since: that cycle's
  // sizes no longer say what to correct.
  const moved = facts.moved;
  if (moved) {
    throw new Refusal(
      "conflict",
      `Order ${moved.id} on ${symbol} became ${moved.state} after the bot's last reconciliation, so its sizes are out of date. Wait for the bot's next cycle, then look again.`,
      [`order ${moved.id} changed after cycle #${line.reconciliationId}`],
    );
  }
  return line;
}

/** What a correction records: the correction row, the acknowledgement it counts as, the operator's data and the audit detail. */
export function correctionRows(input: CorrectInput, line: CurrentBookLine, now: Date, ackTtlMs: number) {
  const delta = correctionDelta(input.kind, line);
  const at = now.toISOString();
  // The correction judges the drift the operator saw: it counts as its acknowledgement.
  const expiresAt = new Date(now.getTime() + ackTtlMs).toISOString();
  return { delta, after: line.ours + delta, at, expiresAt };
}

/** One book_corrections row, for both engines (the PostgreSQL action adds RETURNING id). */
export const CORRECTION_INSERT_SQL = `INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export function correctionValues(input: CorrectInput, line: CurrentBookLine, rows: ReturnType<typeof correctionRows>, actor: string) {
  return [input.botId, input.symbol, input.kind, line.ours, line.theirs, line.reconciliationId, rows.delta, input.note, actor, rows.at];
}

export function correctedResult(input: CorrectInput, line: CurrentBookLine, rows: ReturnType<typeof correctionRows>, correctionId: number) {
  return {
    data: { correctionId, kind: input.kind, before: line.ours, after: rows.after, delta: rows.delta, correctedAt: rows.at },
    detail: {
      kind: input.kind,
      ours: line.ours,
      theirs: line.theirs,
      delta: rows.delta,
      book: rows.after,
      reconciliationId: line.reconciliationId,
      correctionId,
      note: input.note,
      acknowledgedUntil: rows.expiresAt,
    },
  };
}

export function correctBookSpec(deps: { ackTtlMs: number }): ActionSpec<typeof schema, undefined, BookCorrected> {
  return {
    action: "correct_book",
    schema,
    target: (i) => `${i.botId}/${i.symbol}`,
    apply: ({ db, input, actor, now }) => {
      const { botId, symbol } = input;
      const line = getCurrentBookLine({ db, botId, symbol });
      const facts: CorrectionFacts = { line, pending: null, unsettled: undefined, moved: undefined };
      if (line) {
        facts.pending = pendingCorrection({ db, botId, symbol });
        facts.unsettled = db
          .prepare(`SELECT client_order_id AS id, state FROM orders WHERE bot_id = ? AND symbol = ? AND ${UNSETTLED_SQL} ORDER BY created_at, id LIMIT 1`)
          .get(botId, symbol) as { id: string; state: string } | undefined;
        const cycleAt = db.prepare(`SELECT at FROM reconciliations WHERE id = ?`).pluck().get(line.reconciliationId) as string | undefined;
        facts.moved =
          cycleAt === undefined
            ? undefined
            : (db
                .prepare(`SELECT client_order_id AS id, state FROM orders WHERE bot_id = ? AND symbol = ? AND updated_at > ? ORDER BY updated_at DESC LIMIT 1`)
                .get(botId, symbol, cycleAt) as { id: string; state: string } | undefined);
      }
      const current = checkCorrectable(input, facts, now);
      const rows = correctionRows(input, current, now, deps.ackTtlMs);
      const correctionId = Number(db.prepare(CORRECTION_INSERT_SQL).run(...correctionValues(input, current, rows, actor)).lastInsertRowid);
      db.prepare(ACK_INSERT_SQL).run(...ackOfLine(current, { note: input.note, actor, at: rows.at, expiresAt: rows.expiresAt }));
      return correctedResult(input, current, rows, correctionId);
    },
  };
}
