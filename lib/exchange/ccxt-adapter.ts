// No "server-only": the venue gateway (scripts/gateway.ts) and TypeScript bots run it with tsx, outside Next, where that import throws.
/**
 * Real venues through ccxt: Bybit V5, Binance and OKX, spot or linear (USDT-settled) perpetuals.
 *
 * Symbols are the venue's own market ids (BTCUSDT on Bybit and Binance, BTC-USDT-SWAP on OKX), as
 * the bot writes them to the journal; quantities are in the base currency (an OKX contract of 0.01
 * BTC is converted both ways), so the journal's book and the venue's position compare directly.
 *
 * The one rule every method keeps: an answer the venue did not give is never read as "absent".
 * Rate limits, timeouts, refused keys, maintenance and 5xx pages all throw LookupFailedError from
 * findOrder; only an empty answer to a question the venue can answer for this order (inside the
 * time it keeps such orders) is null.
 */
import ccxt, {
  AuthenticationError,
  BadRequest,
  DDoSProtection,
  ExchangeNotAvailable,
  InsufficientFunds,
  InvalidOrder,
  NetworkError,
  OnMaintenance,
  OperationRejected,
  OrderNotFound,
  PermissionDenied,
  RateLimitExceeded,
  RequestTimeout,
  type Exchange,
  type MarketInterface,
  type Order,
} from "ccxt";
import {
  DuplicateClientOrderIdError,
  LookupFailedError,
  OrderRejectedError,
  RateLimitError,
  SendTimeoutError,
  type ExchangeAdapter,
  type ExchangeOrder,
  type ExchangeOrderStatus,
  type ExchangePosition,
  type NewOrder,
  type OrderQuery,
} from "./adapter";
import type { OrderSide } from "../journal/contract";

/** ccxt's `Market` includes undefined; a market we resolved is always there. */
type Market = MarketInterface;

export const CCXT_VENUES = ["bybit", "binance", "okx"] as const;
export type CcxtVenue = (typeof CCXT_VENUES)[number];
export const ACCOUNT_TYPES = ["spot", "linear"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

const HOUR = 3_600_000;
/**
 * How long after its creation a venue still answers for an order it dropped without a fill, per
 * the venues' own API docs; past it, "not found" proves nothing. Conservative where a venue words
 * it loosely:
 *  - Bybit V5: /v5/order/realtime keeps only recent closed orders, /v5/order/history searches 7
 *    days from startTime; canceled orders without fills are the first to go: one day.
 *  - Binance: spot and USDⓈ-M drop CANCELED/EXPIRED orders without fills from GET /order after
 *    3 days (-2013 "Order does not exist" after that too).
 *  - OKX: GET /api/v5/trade/order keeps canceled orders without fills for 2 hours.
 */
export const HISTORY_WINDOW_MS: Record<CcxtVenue, number> = { bybit: 24 * HOUR, binance: 72 * HOUR, okx: 2 * HOUR };

/** What the venue calls the client order id in its own API (and in its signed requests). */
export const CLIENT_ID_PARAM: Record<CcxtVenue, { lookup: string; create: string }> = {
  bybit: { lookup: "orderLinkId", create: "orderLinkId" },
  binance: { lookup: "origClientOrderId", create: "newClientOrderId" },
  okx: { lookup: "clOrdId", create: "clOrdId" },
};

/** Codes each venue answers a reused client order id with (its own words, not ccxt's class). */
const DUPLICATE_ID_CODES: Record<CcxtVenue, RegExp> = {
  bybit: /"retCode":\s*110072\b/,
  binance: /"code":\s*-(4116|2010)\b.*(uplicate|DUPLICATE)|"code":\s*-4116\b/,
  okx: /"sCode":\s*"51016"|"code":\s*"51016"/,
};

export interface CcxtExchangeOptions {
  venue: CcxtVenue;
  accountType: AccountType;
  apiKey: string;
  secret: string;
  /** OKX's API passphrase. */
  password?: string;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /**
   * Replaces the scheme and host of every REST root (a testnet, a recorded-response server in
   * tests, the demo's simulated venue). Paths are kept: Binance's roots differ by path.
   */
  baseUrl?: string;
}

/** A ccxt client for one account, with its key and no network call yet (markets load lazily). */
export function createCcxtExchange(opts: CcxtExchangeOptions): Exchange {
  const linear = opts.accountType === "linear";
  const common = { apiKey: opts.apiKey, secret: opts.secret, password: opts.password, timeout: opts.timeoutMs ?? 10_000, enableRateLimit: true };
  let exchange: Exchange;
  switch (opts.venue) {
    case "bybit":
      exchange = new ccxt.bybit({
        ...common,
        // A V5 unified trading account (every account Bybit opens today): without these, ccxt probes
        // /v5/user/query-api before each order, which a read-and-trade key may not be allowed.
        options: { defaultType: linear ? "swap" : "spot", defaultSubType: "linear", enableUnifiedAccount: true, enableUnifiedMargin: false },
      });
      break;
    case "binance":
      // fetchMargins off: it would ask the margin pairs (a signed call) to load spot markets.
      exchange = linear ? new ccxt.binanceusdm(common) : new ccxt.binance({ ...common, options: { defaultType: "spot", fetchMargins: false } });
      break;
    case "okx":
      // One order, one POST /api/v5/trade/order (ccxt's default is the batch endpoint with one item).
      exchange = new ccxt.okx({ ...common, options: { defaultType: linear ? "swap" : "spot", createOrder: "privatePostTradeOrder" } });
      break;
  }
  // Markets of this account's type only, and no currency list: that list is a signed call needing a
  // wallet permission a read-only lookup key need not have; markets carry the currencies we use.
  const type = opts.venue === "okx" ? (linear ? "swap" : "spot") : linear ? "linear" : "spot";
  exchange.options.fetchMarkets = { ...exchange.options.fetchMarkets, types: [type] };
  exchange.has.fetchCurrencies = false;
  if (opts.baseUrl) pointRestAt(exchange, opts.baseUrl);
  return exchange;
}

/** Rewrites every URL under exchange.urls.api to the same path on `baseUrl`. */
function pointRestAt(exchange: Exchange, baseUrl: string): void {
  const origin = new URL(baseUrl).origin;
  const rewrite = (value: unknown): unknown => {
    if (typeof value === "string") return value.replace(/^https?:\/\/[^/]+/, origin);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v)]));
    return value;
  };
  exchange.urls = { ...exchange.urls, api: rewrite(exchange.urls.api) as typeof exchange.urls.api };
}

export interface CcxtAdapterOptions {
  venue: CcxtVenue;
  accountType: AccountType;
  exchange: Exchange;
  /** Spot only: the symbols (market ids) whose base-currency balances are the bot's positions. */
  symbols?: readonly string[];
  /** Overrides HISTORY_WINDOW_MS for this venue (an account known to keep more, or less). */
  historyWindowMs?: number;
  clock?: () => Date;
  /** Written to bots.exchange. Default "<venue>-<accountType>". */
  name?: string;
}

export class CcxtAdapter implements ExchangeAdapter {
  readonly name: string;
  readonly venue: CcxtVenue;
  readonly accountType: AccountType;
  private readonly exchange: Exchange;
  private readonly symbols: readonly string[];
  private readonly historyWindowMs: number;
  private readonly clock: () => Date;

  constructor(opts: CcxtAdapterOptions) {
    this.venue = opts.venue;
    this.accountType = opts.accountType;
    this.exchange = opts.exchange;
    this.symbols = opts.symbols ?? [];
    this.historyWindowMs = opts.historyWindowMs ?? HISTORY_WINDOW_MS[opts.venue];
    this.clock = opts.clock ?? (() => new Date());
    this.name = opts.name ?? `${opts.venue}-${opts.accountType}`;
    if (opts.accountType === "spot" && this.symbols.length === 0)
      throw new RangeError("a spot account needs its symbols: its positions are balances of their base currencies");
  }

  // ---- the adapter ----------------------------------------------------------------------------

  async findOrder(query: OrderQuery): Promise<ExchangeOrder | null> {
    const id = query.clientOrderId;
    let found: Order | null;
    try {
      const market = await this.market(query.symbol);
      found = this.venue === "bybit" ? await this.findOnBybit(market, query) : await this.findByClientId(market, id);
      if (found) {
        if (found.clientOrderId !== undefined && found.clientOrderId !== id) throw new Error(`the venue answered with order ${found.clientOrderId}, not ${id}`);
        return this.toExchangeOrder(found, market, id);
      }
    } catch (error) {
      // No `cause`: ccxt's errors quote the request URL, and Binance's carries the signature.
      throw new LookupFailedError(`${this.venue} could not be asked about ${id}: ${this.describe(error)}`);
    }
    this.provableAbsence(query);
    return null;
  }

  async fetchPositions(): Promise<ExchangePosition[]> {
    try {
      await this.exchange.loadMarkets();
      return this.accountType === "spot" ? await this.spotPositions() : await this.contractPositions();
    } catch (error) {
      throw this.readError(error, "positions");
    }
  }

  async fetchMarkPrices(symbols: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (symbols.length === 0) return out;
    try {
      const markets = new Map<string, Market>();
      for (const s of symbols) {
        const m = await this.market(s).catch(() => null);
        if (m) markets.set(m.symbol, m);
      }
      if (markets.size === 0) return out;
      const tickers = await this.exchange.fetchTickers([...markets.keys()]);
      for (const [unified, m] of markets) {
        const t = tickers[unified];
        const mark = t ? (t.markPrice ?? t.last) : undefined;
        if (typeof mark === "number" && mark > 0) out.set(idOf(m), mark);
      }
      return out;
    } catch (error) {
      throw this.readError(error, "mark prices");
    }
  }

  async createOrder(order: NewOrder): Promise<ExchangeOrder> {
    return this.send(order);
  }

  async cancelAllOrders(symbol: string): Promise<number> {
    try {
      const market = await this.market(symbol);
      const canceled: unknown = await this.exchange.cancelAllOrders(market.symbol);
      return Array.isArray(canceled) ? canceled.length : 0;
    } catch (error) {
      throw this.readError(error, `cancel on ${symbol}`);
    }
  }

  async closeReduceOnly(order: { clientOrderId: string; symbol: string; size: number }): Promise<ExchangeOrder> {
    const side: OrderSide = order.size > 0 ? "sell" : "buy";
    return this.send({ clientOrderId: order.clientOrderId, symbol: order.symbol, side, qty: Math.abs(order.size), reduceOnly: true });
  }

  /**
   * Server time and one authenticated read: what `npm run gateway -- --check` asks of each account.
   * Throws LookupFailedError with a redacted reason.
   */
  async check(): Promise<{ serverTime: number; lagMs: number }> {
    const before = this.clock().getTime();
    let serverTime: number | undefined;
    try {
      serverTime = await this.exchange.fetchTime();
    } catch (error) {
      throw new LookupFailedError(`server time: ${this.describe(error)}`);
    }
    try {
      await this.exchange.loadMarkets();
      if (this.accountType === "spot") await this.exchange.fetchBalance();
      else await this.contractPositions();
    } catch (error) {
      throw new LookupFailedError(`authenticated read: ${this.describe(error)}`);
    }
    return { serverTime: serverTime ?? before, lagMs: (serverTime ?? before) - before };
  }

  // ---- per venue -------------------------------------------------------------------------------

  /**
   * Bybit's fetchOrder asks by orderId, never by orderLinkId: the client id is asked of open orders
   * (/v5/order/realtime) and then of history (/v5/order/history, searched from a little before the
   * order was made), each with orderLinkId, the venue's own name for it.
   */
  private async findOnBybit(market: Market, query: OrderQuery): Promise<Order | null> {
    const params = { orderLinkId: query.clientOrderId };
    const open = await this.exchange.fetchOpenOrders(market.symbol, undefined, undefined, params);
    const live = open.find((o) => o.clientOrderId === query.clientOrderId);
    if (live) return live;
    const placed = query.placedAt ? Date.parse(query.placedAt) : NaN;
    // Bybit searches 7 days from startTime; a minute before the journal's time covers clock skew.
    const since = Number.isFinite(placed) ? placed - 60_000 : undefined;
    const past = await this.exchange.fetchCanceledAndClosedOrders(market.symbol, since, undefined, params);
    return past.find((o) => o.clientOrderId === query.clientOrderId) ?? null;
  }

  /** Binance (origClientOrderId) and OKX (clOrdId) answer a client id directly, or "does not exist". */
  private async findByClientId(market: Market, clientOrderId: string): Promise<Order | null> {
    try {
      return await this.exchange.fetchOrder(undefined as unknown as string, market.symbol, { [CLIENT_ID_PARAM[this.venue].lookup]: clientOrderId });
    } catch (error) {
      if (isA(error, OrderNotFound)) return null;
      throw error;
    }
  }

  /** Throws unless "not found" proves absence: the venue still keeps every order this young. */
  private provableAbsence(query: OrderQuery): void {
    const placed = query.placedAt ? Date.parse(query.placedAt) : NaN;
    if (!Number.isFinite(placed)) {
      throw new LookupFailedError(
        `${this.venue} has no order ${query.clientOrderId}, but without the time it was made that proves nothing: ${this.venue} forgets some orders`,
      );
    }
    const age = this.clock().getTime() - placed;
    if (age > this.historyWindowMs) {
      throw new LookupFailedError(
        `${this.venue} has no order ${query.clientOrderId}, but it was made ${hours(age)} ago, past the ${hours(this.historyWindowMs)} ${this.venue} keeps every order for: not found does not prove it never existed`,
      );
    }
  }

  private async contractPositions(): Promise<ExchangePosition[]> {
    const positions = await this.exchange.fetchPositions();
    const bySymbol = new Map<string, ExchangePosition>();
    for (const p of positions) {
      const contracts = p.contracts ?? 0;
      if (!contracts) continue;
      const market = p.symbol ? this.exchange.markets?.[p.symbol] : undefined;
      if (!market) continue;
      const base = contracts * this.contractSize(market);
      const size = p.side === "short" ? -Math.abs(base) : Math.abs(base);
      const prev = bySymbol.get(idOf(market));
      bySymbol.set(idOf(market), {
        symbol: idOf(market),
        size: clean((prev?.size ?? 0) + size),
        markPrice: p.markPrice ?? prev?.markPrice ?? null,
      });
    }
    return [...bySymbol.values()].filter((p) => p.size !== 0);
  }

  /** A spot account's "position" in a symbol is its whole balance of the base currency. */
  private async spotPositions(): Promise<ExchangePosition[]> {
    const balance = await this.exchange.fetchBalance();
    const totals = (balance.total ?? {}) as unknown as Record<string, number | undefined>;
    const out: ExchangePosition[] = [];
    for (const symbol of this.symbols) {
      const market = await this.market(symbol);
      const size = totals[market.base] ?? 0;
      if (size) out.push({ symbol: idOf(market), size, markPrice: null });
    }
    return out;
  }

  private async send(order: NewOrder): Promise<ExchangeOrder> {
    let market: Market;
    try {
      market = await this.market(order.symbol);
    } catch (error) {
      throw new OrderRejectedError(order.clientOrderId, this.describe(error));
    }
    const cs = this.contractSize(market);
    const params: Record<string, unknown> = { clientOrderId: order.clientOrderId };
    // Spot cannot go short, so a spot sell can never grow a position: no such flag there.
    if (order.reduceOnly && market.contract) params.reduceOnly = true;
    let placed: Order;
    try {
      placed = await this.exchange.createOrder(market.symbol, "market", order.side, order.qty / cs, undefined, params);
    } catch (error) {
      throw this.sendError(error, order.clientOrderId);
    }
    // Bybit and OKX acknowledge with the ids only; the state comes from a read, if one answers now.
    if (placed.status === undefined || placed.amount === undefined) {
      const now = await this.findOrder({ symbol: order.symbol, clientOrderId: order.clientOrderId, placedAt: this.clock().toISOString() }).catch(() => null);
      if (now) return now;
      return {
        clientOrderId: order.clientOrderId,
        exchangeOrderId: placed.id ?? "",
        symbol: idOf(market),
        side: order.side,
        qty: order.qty,
        status: "open",
        filledQty: 0,
        avgPrice: null,
      };
    }
    return this.toExchangeOrder(placed, market, order.clientOrderId);
  }

  // ---- shared ----------------------------------------------------------------------------------

  /** The market of a venue id (or a ccxt symbol) of this account's type. */
  private async market(symbol: string): Promise<Market> {
    await this.exchange.loadMarkets();
    const wanted = (m: Market) => (this.accountType === "spot" ? m.spot === true : m.swap === true && m.linear === true);
    const markets = this.exchange.markets ?? {};
    const direct = markets[symbol];
    if (direct && wanted(direct)) return direct;
    const byId = Object.values(markets).find((m): m is Market => !!m && m.id === symbol && wanted(m));
    if (!byId) throw new Error(`${this.venue} has no ${this.accountType} market ${symbol}`);
    return byId;
  }

  private contractSize(market: Market): number {
    return market.contract ? (market.contractSize ?? 1) : 1;
  }

  private toExchangeOrder(o: Order, market: Market, clientOrderId: string): ExchangeOrder {
    const cs = this.contractSize(market);
    const qty = clean((o.amount ?? 0) * cs);
    const filledQty = clean((o.filled ?? 0) * cs);
    return {
      clientOrderId,
      exchangeOrderId: o.id ?? "",
      symbol: idOf(market),
      side: o.side === "sell" ? "sell" : "buy",
      qty,
      status: statusOf(o, qty, filledQty),
      filledQty,
      avgPrice: o.average ? o.average : null,
    };
  }

  /** An error text safe to show and log: ccxt puts request URLs in its messages, and Binance signs in the query. */
  private describe(error: unknown): string {
    const e = error instanceof Error ? error : new Error(String(error));
    let what: string;
    if (isA(e, RequestTimeout)) what = `no answer in ${this.exchange.timeout / 1000} s`;
    else if (isRateLimit(e)) what = "rate limited";
    else if (isA(e, OnMaintenance)) what = "under maintenance";
    else if (isA(e, ExchangeNotAvailable)) what = "unavailable";
    else if (isA(e, AuthenticationError) || isA(e, PermissionDenied)) what = "refused the key or its signature";
    else if (isA(e, NetworkError)) what = "network error";
    else what = e.name;
    return `${what} (${redact(e.message, this.exchange)})`;
  }

  private readError(error: unknown, what: string): Error {
    if (isRateLimit(error)) return new RateLimitError(1_000);
    return new LookupFailedError(`${this.venue} ${what}: ${this.describe(error)}`);
  }

  private sendError(error: unknown, clientOrderId: string): Error {
    const text = error instanceof Error ? error.message : String(error);
    if (DUPLICATE_ID_CODES[this.venue].test(text)) return new DuplicateClientOrderIdError(clientOrderId);
    // Turned away before the matching engine: nothing to doubt.
    if (isRateLimit(error)) return new RateLimitError(1_000);
    if (isA(error, OnMaintenance) || isA(error, AuthenticationError)) return new Error(this.describe(error));
    // The venue read the order and said no (margin, size, a closed market...): settled.
    if (isA(error, InvalidOrder) || isA(error, InsufficientFunds) || isA(error, BadRequest) || isA(error, OperationRejected)) {
      return new OrderRejectedError(clientOrderId, this.describe(error));
    }
    // No answer, a gateway page, or an answer ccxt cannot place: the order may or may not be there,
    // and the writer looks it up before anything else.
    return new SendTimeoutError(this.exchange.timeout);
  }
}

/**
 * instanceof without narrowing: ccxt's error classes are structurally identical, so TypeScript
 * would narrow the second test of the same value to never.
 */
const isA = (e: unknown, c: abstract new (...args: never[]) => unknown): boolean => e instanceof c;

/** A resolved market always has its venue id. */
const idOf = (m: Market): string => m.id ?? "";

const isRateLimit = (e: unknown) => isA(e, RateLimitExceeded) || isA(e, DDoSProtection);

function statusOf(o: Order, qty: number, filledQty: number): ExchangeOrderStatus {
  switch (o.status) {
    case "open":
      return filledQty > 0 ? "partially_filled" : "open";
    case "closed":
      // Bybit's PartiallyFilledCanceled is "closed" in ccxt: what did not fill was canceled.
      return qty > 0 && filledQty < qty ? "canceled" : "filled";
    case "rejected":
      return "rejected";
    case "canceled":
    case "expired":
      return "canceled";
    default:
      throw new Error(`unrecognised order status ${JSON.stringify(o.status)}`);
  }
}

/** Strips float dust (0.1 + 0.2) from quantities computed from contracts. */
function clean(n: number): number {
  return Number(n.toPrecision(12)) + 0;
}

function hours(ms: number): string {
  const h = ms / HOUR;
  return h >= 48 ? `${Math.round(h / 24)} days` : `${Number(h.toFixed(1))} h`;
}

/**
 * Removes signatures and the key from a message (ccxt quotes request URLs and bodies). A quoted URL
 * loses its query: it repeats the order's id, and Binance signs there (timestamp, signature), which
 * only made a halt reason longer to read.
 */
export function redact(message: string, exchange: Pick<Exchange, "apiKey" | "secret">): string {
  let out = message.replace(/(https?:\/\/[^\s?"]+)\?[^\s"]*/g, "$1").replace(/([?&](signature|sign)=)[^&\s"]+/gi, "$1[redacted]");
  for (const secret of [exchange.apiKey, exchange.secret]) if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out.length > 400 ? `${out.slice(0, 400)}…` : out;
}
