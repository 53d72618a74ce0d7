/**
 * What the journal writer needs from a venue. The simulator (lib/exchange/simulator.ts) and every
 * real venue implement this; nothing else in the project talks to an exchange.
 */
import type { OrderSide } from "../journal/contract";

/** Order states as an exchange reports them (a subset of the journal's states). */
export type ExchangeOrderStatus = "open" | "partially_filled" | "filled" | "canceled" | "rejected";

export interface ExchangeOrder {
  clientOrderId: string;
  exchangeOrderId: string;
  symbol: string;
  side: OrderSide;
  qty: number;
  status: ExchangeOrderStatus;
  filledQty: number;
  avgPrice: number | null;
}

export interface ExchangePosition {
  symbol: string;
  /** Signed: long > 0, short < 0. */
  size: number;
  markPrice: number | null;
}

export interface NewOrder {
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  qty: number;
  reduceOnly?: boolean;
}

export interface OrderQuery {
  symbol: string;
  clientOrderId: string;
  /**
   * When the order was made (the journal's created_at, ISO 8601). Real venues keep some orders for
   * a limited time only (a canceled order without fills: hours on some), so "not found" proves
   * absence only for an order young enough to still be kept; without this time it proves nothing.
   */
  placedAt?: string;
}

export interface ExchangeAdapter {
  readonly name: string;
  /**
   * Look an order up by its client order id, in open orders and recent history.
   * Returns null only when the exchange proves it does not have it; throws when it cannot tell.
   */
  findOrder(query: OrderQuery): Promise<ExchangeOrder | null>;
  fetchPositions(): Promise<ExchangePosition[]>;
  /**
   * Mark prices of these symbols, held or flat: a position's mark comes with fetchPositions, but a
   * symbol the venue holds flat still needs one to value the bot's side of a drift. A symbol the
   * venue does not price is left out of the map.
   */
  fetchMarkPrices(symbols: readonly string[]): Promise<Map<string, number>>;
  /** Throws SendTimeoutError when the reply is lost: the order may or may not exist. */
  createOrder(order: NewOrder): Promise<ExchangeOrder>;
  /** Cancels every open order on a symbol; returns how many were canceled. */
  cancelAllOrders(symbol: string): Promise<number>;
  /**
   * Flattens a position with a reduce-only market order of |size| against its sign. Can never open
   * or grow a position. Same timeout semantics as createOrder.
   */
  closeReduceOnly(order: { clientOrderId: string; symbol: string; size: number }): Promise<ExchangeOrder>;
}

/** The request or its reply was lost: the order's existence is unknown. */
export class SendTimeoutError extends Error {
  override name = "SendTimeoutError";
  constructor(readonly afterMs: number) {
    super(`timeout after ${afterMs} ms`);
  }
}

/** The exchange already has an order with this client order id. */
export class DuplicateClientOrderIdError extends Error {
  override name = "DuplicateClientOrderIdError";
  constructor(readonly clientOrderId: string) {
    super(`duplicate client order id ${clientOrderId}`);
  }
}

export class RateLimitError extends Error {
  override name = "RateLimitError";
  constructor(readonly retryAfterMs: number) {
    super(`rate limited, retry after ${retryAfterMs} ms`);
  }
}

/** The exchange received the order and refused it: a settled outcome, not a doubt. */
export class OrderRejectedError extends Error {
  override name = "OrderRejectedError";
  constructor(
    readonly clientOrderId: string,
    readonly reason: string,
  ) {
    super(`order ${clientOrderId} rejected: ${reason}`);
  }
}

/** A lookup that could not tell whether the order exists (it failed or timed out). */
export class LookupFailedError extends Error {
  override name = "LookupFailedError";
}
