import "server-only";
/**
 * Settling a doubtful order: by asking the exchange about its client order id, or by recording
 * what a person saw on the exchange's own screen. Never by sending it again.
 */
import type Database from "better-sqlite3";
import type { JournalDb } from "../db/console";
import type { OrderRow as OrdersTableRow } from "../db/schema";
import { z } from "zod";
import { noteField } from "./text-field";
import { clientOrderIdField } from "../journal/ids";
import type { OrderLookup } from "../exchange/venue-gateway";
import { classifyOrder } from "../journal/order-state";
import { ORDER_STATES, type OrderState } from "../journal/contract";
import { formatUtc } from "../text/format";
import { farFromMark, PRICE_SANITY_FACTOR, priceRatio, roundedMark } from "../journal/price-sanity";
import { Refusal, type ActionSpec } from "./guard";

export type OrderRow = Pick<OrdersTableRow, "clientOrderId" | "botId" | "symbol" | "qty" | "state" | "filledQty" | "createdAt" | "updatedAt" | "version">;

const id = clientOrderIdField;
const version = z.coerce.number({ error: "Missing version" }).int().positive("Missing version");

function loadOrder(db: Database.Database, clientOrderId: string): OrderRow | undefined {
  return db
    .prepare(
      `SELECT client_order_id AS clientOrderId, bot_id AS botId, symbol, qty, state, filled_qty AS filledQty, created_at AS createdAt, updated_at AS updatedAt, version
       FROM orders WHERE client_order_id = ?`,
    )
    .get(clientOrderId) as OrderRow | undefined;
}

/**
 * What the operator saw of the order when they chose to act: its state and filled quantity, the
 * facts the card shows and a resolution rests on. Optional so that a post carrying only the
 * version (an older page) is still checked, strictly, on the version.
 */
const seenState = z.preprocess((v) => (v === "" ? undefined : v), z.enum(ORDER_STATES, { error: "Unknown order state seen" }).optional());
const seenFilledQty = z.preprocess(
  (v) => (v === "" ? undefined : v),
  z.coerce.number({ error: "Seen filled quantity must be a number" }).min(0, "Seen filled quantity cannot be negative").optional(),
);

interface Seen {
  clientOrderId: string;
  version: number;
  seenState?: OrderState;
  seenFilledQty?: number;
}

/** The order as it was seen and as it is now, for the audit log. */
function seenAndNow(order: OrderRow, input: Seen) {
  return {
    seen: { version: input.version, state: input.seenState ?? null, filledQty: input.seenFilledQty ?? null },
    now: { version: order.version, state: order.state, filledQty: order.filledQty },
  };
}

/**
 * The order must exist, be as the operator saw it, and still be doubtful. "As they saw it" means
 * its state and filled quantity: a bot retrying a lookup raises the version (attempts, last error)
 * every few seconds without changing anything a resolution rests on, and must not win that race.
 * Without the seen state the version alone decides, as before.
 */
export function checkStillDoubtful(order: OrderRow | undefined, input: Seen, now: Date, graceMs: number): OrderRow {
  if (!order) throw new Refusal("refused", `No order ${input.clientOrderId} in the journal.`);
  if (order.version !== input.version) {
    if (input.seenState === undefined || input.seenFilledQty === undefined) {
      throw new Refusal(
        "conflict",
        `Order ${order.clientOrderId} changed since you looked (version ${input.version}, now ${order.version}, state ${order.state}). Look again before acting.`,
        [`version ${input.version} seen, ${order.version} now`],
        seenAndNow(order, input),
      );
    }
    const changes: string[] = [];
    if (order.state !== input.seenState) changes.push(`state ${input.seenState} → ${order.state}`);
    if (Math.abs(order.filledQty - input.seenFilledQty) > 1e-12) changes.push(`filled ${input.seenFilledQty} → ${order.filledQty}`);
    if (changes.length > 0) {
      throw new Refusal(
        "conflict",
        `Order ${order.clientOrderId} changed since you looked: ${changes.join("; ")}. Look at it again, then resolve it from what it shows now.`,
        changes,
        seenAndNow(order, input),
      );
    }
  }
  if (classifyOrder(order, { now, graceMs }) !== "doubtful") {
    throw new Refusal("refused", `Order ${order.clientOrderId} is no longer doubtful (state ${order.state}).`, [`state ${order.state}`]);
  }
  return order;
}

/** A failed answer never reaches a resolution: prepare refuses it first. */
type LookupAnswer = Awaited<ReturnType<OrderLookup["lookup"]>>;

export interface ResolutionChange {
  state: OrderState;
  filledQty: number;
  avgPrice: number | null;
  exchangeOrderId?: string | null;
}
export interface ResolutionEvent {
  kind: "lookup_found" | "lookup_absent" | "operator";
  actor: string;
  detail: Record<string, unknown>;
}
/** A resolution: what it writes to the order and its events, and what the operator and the audit log get. */
export interface Resolution {
  change: ResolutionChange;
  event: ResolutionEvent;
  result: { data: Resolved; detail: Record<string, unknown> };
}

/** What the operator is told: the state the order now has, and the average price recorded (null: none). */
export interface Resolved {
  state: OrderState;
  avgPrice: number | null;
}

function writeResolution(db: Database.Database, order: OrderRow, change: ResolutionChange, event: ResolutionEvent, now: Date) {
  const at = now.toISOString();
  db.prepare(
    `UPDATE orders SET state = ?, filled_qty = ?, avg_price = coalesce(?, avg_price), exchange_order_id = coalesce(?, exchange_order_id),
       last_error = NULL, updated_at = ?, version = version + 1 WHERE client_order_id = ? AND version = ?`,
  ).run(change.state, change.filledQty, change.avgPrice, change.exchangeOrderId ?? null, at, order.clientOrderId, order.version);
  db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, ?)`).run(
    order.clientOrderId,
    at,
    event.kind,
    event.actor,
    JSON.stringify(event.detail),
  );
}

const lookupSchema = z.object({ clientOrderId: id, version, seenState, seenFilledQty });

type LookupSpec = ActionSpec<typeof lookupSchema, { answer: LookupAnswer; botId: string; symbol: string }, Resolved>;

export function resolveByLookupSpec(deps: { lookup: OrderLookup | null; graceMs: number; reader: () => JournalDb }): LookupSpec {
  return resolveByLookupSpecWith({ ...deps, findOrder: async (clientOrderId) => loadOrder(deps.reader().$client, clientOrderId) });
}

/**
 * The lookup action with the order read before the transaction by `findOrder`: the journal's read
 * connection on SQLite (above), the source's pool on PostgreSQL (lib/actions/pg-actions.ts).
 */
export function resolveByLookupSpecWith(deps: {
  lookup: OrderLookup | null;
  graceMs: number;
  findOrder: (clientOrderId: string) => Promise<OrderRow | undefined>;
}): LookupSpec {
  return {
    action: "resolve_order_lookup",
    schema: lookupSchema,
    target: (i) => i.clientOrderId,
    prepare: async (input) => {
      if (!deps.lookup) {
        throw new Refusal(
          "refused",
          "No venue gateway is configured (DRIFTWATCH_VENUE_URL), so the console cannot ask the exchange. Resolve by hand from the exchange's own screen instead.",
        );
      }
      // Asked on the read connection, outside the write lock: the exchange may take seconds to answer.
      const order = await deps.findOrder(input.clientOrderId);
      if (!order) throw new Refusal("refused", `No order ${input.clientOrderId} in the journal.`);
      const answer = await deps.lookup.lookup({ botId: order.botId, symbol: order.symbol, clientOrderId: order.clientOrderId, placedAt: order.createdAt });
      if (answer.kind === "failed") {
        // The error once, with the next step: the card's form shows a repeat as "failed again at …".
        throw new Refusal(
          "refused",
          `Check on exchange failed: ${answer.error}. The order stays doubtful: try again, or resolve by hand with what the exchange's own page shows.`,
          [],
          { lookup: answer },
        );
      }
      return { answer, botId: order.botId, symbol: order.symbol };
    },
    apply: ({ db, input, prepared, actor, now }) => {
      const order = checkStillDoubtful(loadOrder(db, input.clientOrderId), input, now, deps.graceMs);
      const r = lookupResolution(order, input, prepared.answer, actor);
      writeResolution(db, order, r.change, r.event, now);
      return r.result;
    },
  };
}

/** What a lookup's answer writes and reports, on either engine. */
export function lookupResolution(order: OrderRow, input: Seen, answer: LookupAnswer, actor: string): Resolution {
  if (answer.kind === "found") {
    const o = answer.order;
    return {
      change: { state: o.status, filledQty: o.filledQty, avgPrice: o.avgPrice, exchangeOrderId: o.exchangeOrderId },
      event: { kind: "lookup_found", actor, detail: { status: o.status, filledQty: o.filledQty, avgPrice: o.avgPrice, exchangeOrderId: o.exchangeOrderId } },
      result: {
        data: { state: o.status, avgPrice: o.avgPrice },
        detail: {
          ...seenAndNow(order, input),
          before: { state: order.state, version: order.version },
          after: { state: o.status, filledQty: o.filledQty, ...(o.avgPrice !== null ? { avgPrice: o.avgPrice } : {}) },
          lookup: "found",
        },
      },
    };
  }
  return {
    change: { state: "absent", filledQty: 0, avgPrice: null },
    event: { kind: "lookup_absent", actor, detail: { during: "operator check" } },
    result: {
      data: { state: "absent", avgPrice: null },
      detail: { ...seenAndNow(order, input), before: { state: order.state, version: order.version }, after: { state: "absent" }, lookup: "absent" },
    },
  };
}

const MANUAL_STATES = ["filled", "partially_filled", "open", "canceled", "rejected", "absent"] as const;

const manualSchema = z
  .object({
    clientOrderId: id,
    version,
    seenState,
    seenFilledQty,
    status: z.enum(MANUAL_STATES, { error: "Choose the status the exchange shows" }),
    filledQty: z.preprocess(
      (v) => (v === "" || v === undefined ? undefined : v),
      z.coerce.number({ error: "Filled quantity must be a number" }).min(0, "Filled quantity cannot be negative").optional(),
    ),
    avgPrice: z.preprocess(
      (v) => (v === "" || v === undefined ? undefined : v),
      z.coerce.number({ error: "Average price must be a number" }).positive("Average price must be above 0").optional(),
    ),
    note: noteField({ field: "note", ask: "Say what you saw and where" }),
    /** Ticked: the average price is meant, however far from the last mark. */
    priceConfirmed: z.preprocess((v) => v === "on" || v === "true", z.boolean()),
  })
  .refine((v) => !["partially_filled"].includes(v.status) || (v.filledQty !== undefined && v.filledQty > 0), {
    path: ["filledQty"],
    message: "A partial fill needs the filled quantity",
  });

/** The symbol's latest mark on the bot's latest line (one primary-key read), if the venue gave one. */
function lastMark(db: Database.Database, order: OrderRow): { markPrice: number; at: string } | undefined {
  const row = db.prepare(`SELECT mark_price AS markPrice, at FROM latest_positions WHERE bot_id = ? AND symbol = ?`).get(order.botId, order.symbol) as
    { markPrice: number | null; at: string } | undefined;
  return usableMark(row);
}

type ManualInput = z.infer<typeof manualSchema>;

/**
 * The checks of a resolution by hand once the order is known to be as seen, and what it writes,
 * on either engine. `mark`: the symbol's latest mark, read only when `needsMark(input)`.
 */
export function manualResolution(
  order: OrderRow,
  input: ManualInput,
  mark: { markPrice: number; at: string } | undefined,
  actor: string,
  now: Date,
): Resolution {
  const filled =
    input.status === "filled" ? (input.filledQty ?? order.qty) : input.status === "absent" || input.status === "rejected" ? 0 : (input.filledQty ?? 0);
  // The sentence alone: field errors go with "invalid" refusals only (the input's shape), and this
  // one is known only against the journal.
  if (filled > order.qty + 1e-12) throw new Refusal("refused", `Filled quantity ${filled} is more than the order's ${order.qty}. Nothing was changed.`);
  if (input.status === "filled" && Math.abs(filled - order.qty) > 1e-12)
    throw new Refusal("refused", `A filled order fills its whole quantity (${order.qty}); use "partially filled" for ${filled}.`);
  if (mark && input.avgPrice !== undefined && farFromMark(input.avgPrice, mark.markPrice)) {
    const ratio = priceRatio(input.avgPrice, mark.markPrice);
    throw new Refusal(
      "refused",
      `${input.avgPrice} is ${ratio} the last mark of ${order.symbol} (${roundedMark(mark.markPrice)}); beyond ×${PRICE_SANITY_FACTOR} or ÷${PRICE_SANITY_FACTOR} reads as a slipped decimal point: check the decimal point, or tick "The price is right" to record it anyway.`,
      [`average price ${input.avgPrice}; last mark ${mark.markPrice} (${ratio}), from the reconciliation at ${formatUtc(mark.at, now)}`],
      { avgPrice: input.avgPrice, mark: mark.markPrice, markAt: mark.at, ratio },
    );
  }
  return {
    change: { state: input.status, filledQty: filled, avgPrice: input.avgPrice ?? null },
    event: {
      kind: "operator",
      actor,
      detail: {
        resolvedBy: "hand",
        status: input.status,
        filledQty: filled,
        avgPrice: input.avgPrice ?? null,
        note: input.note,
        ...(input.priceConfirmed ? { priceConfirmed: true } : {}),
      },
    },
    result: {
      data: { state: input.status, avgPrice: input.avgPrice ?? null },
      detail: {
        ...seenAndNow(order, input),
        before: { state: order.state, version: order.version },
        // The price as well: the audit log is where a price typed wrong is found afterwards.
        after: { state: input.status, filledQty: filled, ...(input.avgPrice !== undefined ? { avgPrice: input.avgPrice } : {}) },
        note: input.note,
        ...(input.priceConfirmed ? { priceConfirmed: true } : {}),
      },
    },
  };
}

/** The last mark matters only for a price the operator did not confirm. */
export const needsMark = (input: ManualInput) => input.avgPrice !== undefined && !input.priceConfirmed;

/** A usable mark (above 0), or none. */
export const usableMark = (row: { markPrice: number | null; at: string } | undefined) =>
  row && row.markPrice !== null && row.markPrice > 0 ? { markPrice: row.markPrice, at: row.at } : undefined;

export function resolveManuallySpec(deps: { graceMs: number }): ActionSpec<typeof manualSchema, undefined, Resolved> {
  return {
    action: "resolve_order_manual",
    schema: manualSchema,
    target: (i) => i.clientOrderId,
    apply: ({ db, input, actor, now }) => {
      const order = checkStillDoubtful(loadOrder(db, input.clientOrderId), input, now, deps.graceMs);
      const r = manualResolution(order, input, needsMark(input) ? lastMark(db, order) : undefined, actor, now);
      writeResolution(db, order, r.change, r.event, now);
      return r.result;
    },
  };
}
