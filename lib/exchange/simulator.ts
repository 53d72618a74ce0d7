/**
 * A simulated venue for tests and demos. Everything that can go wrong between a bot and its exchange
 * (lost replies, late orders, partial fills, refusals, failing lookups) can be scripted here, one
 * call at a time, so a scenario replays the same way on every run.
 *
 * Determinism: prices come from a seeded PRNG and time from a simulated clock that moves only on
 * tick()/advance(). Calls are async like a real adapter's, but settle without waiting on real time.
 */
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
} from "./adapter";
import type { OrderSide } from "../journal/contract";

export interface SimSymbolConfig {
  symbol: string;
  qtyStep: number;
  /** Starting price; also the first mark price. */
  price: number;
}

export interface SimExchangeOptions {
  seed: number;
  symbols: SimSymbolConfig[];
  /** Start of the simulated clock. Defaults to a fixed instant, never the wall clock. */
  startAt?: Date;
  name?: string;
  /** Simulated time between two steps of the price walk. Default 1000 ms. */
  tickMs?: number;
  /** Largest relative price move in one step. Default 0.001 (0.1 %). */
  volatility?: number;
  /** What a SendTimeoutError reports as `afterMs`. Default 10000 ms. */
  timeoutMs?: number;
}

/** How many matching calls a fault affects (default 1; Infinity for "until cleared"). */
interface Times {
  times?: number;
  /** Simulated instant (ms) from which the fault no longer applies, however many calls it had left. */
  untilMs?: number;
}

/** A fault with a filter only hits calls for that symbol and/or client order id. */
interface OrderFilter extends Times {
  symbol?: string;
  clientOrderId?: string;
}

interface RateLimitFault {
  fault: "rate_limit";
  /** Default 1000 ms. */
  retryAfterMs?: number;
}

/**
 * Faults of an order send. Those where the exchange does receive the order run it through exactly
 * the same checks as a normal send (duplicate id, reduce-only), so a lost reply can hide a refusal too.
 */
export type SendFault =
  /** The request never arrived: SendTimeoutError, and the exchange has nothing. */
  | { fault: "timeout_not_received"; afterMs?: number }
  /**
   * The exchange took the order (filled by default) and the reply was lost: SendTimeoutError. With
   * `lookupsFailForMs`, the bot's link cannot ask about this order either for that long (simulated
   * time from the lost reply): its lookups of the id fail, while venueRecord still answers.
   */
  | { fault: "timeout_after_accept"; afterMs?: number; fillRatio?: number; completeAfterMs?: number; lookupsFailForMs?: number }
  /**
   * SendTimeoutError now; the order reaches the exchange only after `delayMs` of simulated time.
   * Until then lookups truthfully return null. If an order with the same id got there first, the
   * late one is refused as a duplicate and nobody hears about it, as on a real venue.
   */
  | { fault: "delayed_appearance"; delayMs: number; afterMs?: number; fillRatio?: number; completeAfterMs?: number }
  /**
   * Accepted with `fillRatio` of the quantity filled (rounded down to the qty step; 0 leaves it
   * "open"). The rest fills on fillRemaining() or, if given, after `completeAfterMs`.
   */
  | { fault: "partial_fill"; fillRatio: number; completeAfterMs?: number }
  /** Received and refused: OrderRejectedError, and the order is on record as "rejected". */
  | { fault: "reject"; reason?: string }
  /** Turned away before reaching the matching engine: RateLimitError, nothing recorded. */
  | RateLimitFault;

export type SimFault =
  /** "create" hits createOrder only, "close" hits closeReduceOnly only. */
  | ({ on: "create" | "close" } & OrderFilter & SendFault)
  /**
   * lookup_fail and lookup_timeout both throw LookupFailedError, the adapter's "cannot tell" error;
   * a lookup_timeout carries a SendTimeoutError as its `cause`.
   */
  | ({ on: "find" } & OrderFilter & ({ fault: "lookup_fail" } | { fault: "lookup_timeout"; afterMs?: number } | RateLimitFault))
  /** fetch_fail throws LookupFailedError: the positions could not be read. */
  | ({ on: "positions" } & Times & ({ fault: "fetch_fail" } | RateLimitFault))
  | ({ on: "cancel"; symbol?: string } & Times & RateLimitFault);

type Call = { on: SimFault["on"]; symbol?: string; clientOrderId?: string };

interface QueuedFault {
  fault: SimFault;
  left: number;
}

interface OrderRecord extends ExchangeOrder {
  reduceOnly: boolean;
}

interface SymbolState {
  qtyStep: number;
  decimals: number;
  price: number;
  position: number;
  random: () => number;
}

interface ScheduledEvent {
  at: number;
  seq: number;
  run: () => void;
}

/** Fixed so that two runs without startAt still agree. */
const DEFAULT_START = Date.UTC(2026, 0, 1);
const LIVE_STATUSES: readonly ExchangeOrderStatus[] = ["open", "partially_filled"];

export class SimExchange implements ExchangeAdapter {
  readonly name: string;

  private clockMs: number;
  private readonly tickMs: number;
  private nextTickAt: number;
  private readonly volatility: number;
  private readonly timeoutMs: number;
  private readonly symbols = new Map<string, SymbolState>();
  // Keyed by client order id: that id is the venue's uniqueness guard.
  private readonly book = new Map<string, OrderRecord>();
  private readonly faults: QueuedFault[] = [];
  private readonly scheduled: ScheduledEvent[] = [];
  private seq = 0;
  private exchangeIds = 0;

  constructor(options: SimExchangeOptions) {
    if (!Number.isFinite(options.seed)) throw new RangeError(`seed must be a finite number, got ${options.seed}`);
    this.name = options.name ?? "sim";
    this.clockMs = options.startAt?.getTime() ?? DEFAULT_START;
    if (!Number.isFinite(this.clockMs)) throw new RangeError("startAt is an invalid date");
    this.tickMs = positive(options.tickMs ?? 1000, "tickMs");
    this.nextTickAt = this.clockMs + this.tickMs;
    this.volatility = options.volatility ?? 0.001;
    if (!(this.volatility >= 0 && this.volatility < 1)) throw new RangeError(`volatility must be in [0, 1), got ${this.volatility}`);
    this.timeoutMs = positive(options.timeoutMs ?? 10_000, "timeoutMs");
    for (const s of options.symbols) {
      if (this.symbols.has(s.symbol)) throw new RangeError(`symbol ${s.symbol} listed twice`);
      positive(s.qtyStep, `qtyStep of ${s.symbol}`);
      positive(s.price, `price of ${s.symbol}`);
      // One stream per symbol, so adding a symbol to a scenario does not change the others' prices.
      this.symbols.set(s.symbol, {
        qtyStep: s.qtyStep,
        decimals: decimalsOf(s.qtyStep),
        price: s.price,
        position: 0,
        random: mulberry32(options.seed ^ fnv1a(s.symbol)),
      });
    }
  }

  // ---- the adapter ----------------------------------------------------------------------------

  async findOrder(query: { symbol: string; clientOrderId: string }): Promise<ExchangeOrder | null> {
    const fault = this.takeFault({ on: "find", ...query });
    if (fault?.on === "find") {
      if (fault.fault === "rate_limit") throw new RateLimitError(fault.retryAfterMs ?? 1000);
      if (fault.fault === "lookup_fail") throw new LookupFailedError(`no answer from the venue about ${query.clientOrderId}: connection reset`);
      const afterMs = fault.afterMs ?? this.timeoutMs;
      throw new LookupFailedError(`lookup of ${query.clientOrderId} timed out`, { cause: new SendTimeoutError(afterMs) });
    }
    return this.venueRecord(query);
  }

  /**
   * The venue's own record of an order, as a service that reaches the venue by its own route reads
   * it (the demo's venue gateway). The "find" faults stand for the bot's link to the venue failing,
   * so they neither hit this read nor are used up by it: while the bot cannot get an answer, a
   * person asking through the gateway can, as on a real desk.
   */
  venueRecord(query: { symbol: string; clientOrderId: string }): ExchangeOrder | null {
    const record = this.book.get(query.clientOrderId);
    // Venues look ids up per symbol: under another symbol the order is genuinely not there.
    if (!record || record.symbol !== query.symbol) return null;
    return snapshot(record);
  }

  async fetchPositions(): Promise<ExchangePosition[]> {
    const fault = this.takeFault({ on: "positions" });
    if (fault?.on === "positions") {
      if (fault.fault === "rate_limit") throw new RateLimitError(fault.retryAfterMs ?? 1000);
      throw new LookupFailedError("fetching positions failed");
    }
    const out: ExchangePosition[] = [];
    for (const [symbol, s] of this.symbols) {
      if (s.position !== 0) out.push({ symbol, size: s.position, markPrice: s.price });
    }
    return out;
  }

  /** Never faulted: the scripted faults on "positions" stay one per fetchPositions call. */
  async fetchMarkPrices(symbols: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const symbol of symbols) {
      const s = this.symbols.get(symbol);
      if (s) out.set(symbol, s.price);
    }
    return out;
  }

  async createOrder(order: NewOrder): Promise<ExchangeOrder> {
    return this.send("create", { ...order, reduceOnly: order.reduceOnly ?? false });
  }

  async cancelAllOrders(symbol: string): Promise<number> {
    const fault = this.takeFault({ on: "cancel", symbol });
    if (fault?.on === "cancel") throw new RateLimitError(fault.retryAfterMs ?? 1000);
    let canceled = 0;
    for (const record of this.book.values()) {
      if (record.symbol === symbol && LIVE_STATUSES.includes(record.status)) {
        record.status = "canceled";
        canceled++;
      }
    }
    return canceled;
  }

  async closeReduceOnly(order: { clientOrderId: string; symbol: string; size: number }): Promise<ExchangeOrder> {
    // Against the sign of the size the caller wants flat; a size of 0 becomes a qty-0 refusal.
    const side: OrderSide = order.size > 0 ? "sell" : "buy";
    return this.send("close", {
      clientOrderId: order.clientOrderId,
      symbol: order.symbol,
      side,
      qty: Math.abs(order.size),
      reduceOnly: true,
    });
  }

  // ---- the simulated world --------------------------------------------------------------------

  now(): Date {
    return new Date(this.clockMs);
  }

  /**
   * Moves simulated time forward: the price walk steps once per tickMs crossed, and late orders and
   * scheduled fills happen at their own instants, each at the price of that moment.
   */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`advance takes a finite ms >= 0, got ${ms}`);
    const target = this.clockMs + ms;
    for (;;) {
      const event = this.nextEvent();
      const at = Math.min(this.nextTickAt, event?.at ?? Infinity);
      if (at > target) break;
      this.clockMs = at;
      // At the same instant the price moves first, so a fill there sees the new price.
      if (at === this.nextTickAt) {
        this.walk();
        this.nextTickAt += this.tickMs;
      } else if (event) {
        this.scheduled.splice(this.scheduled.indexOf(event), 1);
        event.run();
      }
    }
    this.clockMs = target;
  }

  /** One step of the price walk (advances the clock by tickMs). */
  tick(): void {
    this.advance(this.tickMs);
  }

  price(symbol: string): number {
    return this.symbol(symbol).price;
  }

  /** Pins a price, e.g. to make a fill price exact in a scenario. The walk continues from it. */
  setPrice(symbol: string, price: number): void {
    this.symbol(symbol).price = positive(price, `price of ${symbol}`);
  }

  /** Signed size the exchange holds; 0 when flat. */
  position(symbol: string): number {
    return this.symbol(symbol).position;
  }

  /**
   * Sets the exchange's position without any order, as a manual trade or another system would: a
   * position the bot never opened, or a partial close done by hand.
   */
  setPositionBehindBot(symbol: string, size: number): void {
    const s = this.symbol(symbol);
    if (!Number.isFinite(size)) throw new RangeError(`size must be finite, got ${size}`);
    s.position = roundToStep(size, s);
  }

  /** Every order the exchange has, in arrival order (late orders only once they have arrived). */
  orders(): ExchangeOrder[] {
    return [...this.book.values()].map(snapshot);
  }

  /** Fills what is left of a live order at the current price. */
  fillRemaining(clientOrderId: string): ExchangeOrder {
    const record = this.book.get(clientOrderId);
    if (!record) throw new Error(`the exchange has no order ${clientOrderId}`);
    if (!LIVE_STATUSES.includes(record.status)) throw new Error(`order ${clientOrderId} is ${record.status}, not live`);
    this.fill(record, record.qty - record.filledQty);
    return snapshot(record);
  }

  /** Queues a fault; faults are used first-in first-out among those matching a call. */
  inject(fault: SimFault): void {
    const times = fault.times ?? 1;
    if (!(times >= 1) || (Number.isFinite(times) && !Number.isInteger(times))) {
      throw new RangeError(`times must be an integer >= 1 or Infinity, got ${times}`);
    }
    if (fault.on === "create" || fault.on === "close") {
      if ("fillRatio" in fault && fault.fillRatio !== undefined) {
        // A "partial" fill of the whole quantity would be a plain fill under a misleading name.
        const ok = fault.fault === "partial_fill" ? fault.fillRatio < 1 : fault.fillRatio <= 1;
        if (!(fault.fillRatio >= 0 && ok)) throw new RangeError(`fillRatio out of range for ${fault.fault}: ${fault.fillRatio}`);
      }
      if (fault.fault === "delayed_appearance") positive(fault.delayMs, "delayMs");
      if ("completeAfterMs" in fault && fault.completeAfterMs !== undefined) positive(fault.completeAfterMs, "completeAfterMs");
      if ("lookupsFailForMs" in fault && fault.lookupsFailForMs !== undefined) positive(fault.lookupsFailForMs, "lookupsFailForMs");
    }
    this.faults.push({ fault: { ...fault }, left: times });
  }

  /** Faults not used up yet, so a scenario can assert that its whole script ran. */
  pendingFaults(): SimFault[] {
    return this.faults.filter((q) => q.fault.untilMs === undefined || this.clockMs < q.fault.untilMs).map((q) => ({ ...q.fault }));
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  // ---- internals ------------------------------------------------------------------------------

  private async send(on: "create" | "close", order: NewOrder & { reduceOnly: boolean }): Promise<ExchangeOrder> {
    const fault = this.takeFault({ on, symbol: order.symbol, clientOrderId: order.clientOrderId });
    if (!fault || (fault.on !== "create" && fault.on !== "close")) return this.receive(order, 1);

    switch (fault.fault) {
      case "rate_limit":
        throw new RateLimitError(fault.retryAfterMs ?? 1000);
      case "timeout_not_received":
        throw new SendTimeoutError(fault.afterMs ?? this.timeoutMs);
      case "reject":
        if (this.book.has(order.clientOrderId)) throw new DuplicateClientOrderIdError(order.clientOrderId);
        throw this.refuse(order, fault.reason ?? "rejected by the exchange");
      case "partial_fill":
        return this.receive(order, fault.fillRatio, fault.completeAfterMs);
      case "timeout_after_accept":
        try {
          this.receive(order, fault.fillRatio ?? 1, fault.completeAfterMs);
        } catch {
          // The exchange answered (refusal or duplicate), but the answer is what got lost.
        }
        if (fault.lookupsFailForMs !== undefined) {
          this.faults.push({
            fault: { on: "find", clientOrderId: order.clientOrderId, fault: "lookup_fail", untilMs: this.clockMs + fault.lookupsFailForMs },
            left: Infinity,
          });
        }
        throw new SendTimeoutError(fault.afterMs ?? this.timeoutMs);
      case "delayed_appearance": {
        const { fillRatio = 1, completeAfterMs } = fault;
        this.schedule(this.clockMs + fault.delayMs, () => {
          try {
            this.receive(order, fillRatio, completeAfterMs);
          } catch {
            // Nobody is listening for this answer any more; a refusal is still on record if any.
          }
        });
        throw new SendTimeoutError(fault.afterMs ?? this.timeoutMs);
      }
    }
  }

  /** The matching engine: the id guard, the checks, the acceptance and the first fill. */
  private receive(order: NewOrder & { reduceOnly: boolean }, fillRatio: number, completeAfterMs?: number): ExchangeOrder {
    if (this.book.has(order.clientOrderId)) throw new DuplicateClientOrderIdError(order.clientOrderId);
    const s = this.symbols.get(order.symbol);
    if (!s) throw this.refuse(order, `unknown symbol ${order.symbol}`);
    if (!(order.qty > 0) || !Number.isFinite(order.qty)) throw this.refuse(order, `qty must be above 0, got ${order.qty}`);
    if (Math.abs(roundToStep(order.qty, s) - order.qty) > s.qtyStep * 1e-6) {
      throw this.refuse(order, `qty ${order.qty} is not a multiple of the qty step ${s.qtyStep}`);
    }

    let qty = roundToStep(order.qty, s);
    if (order.reduceOnly) {
      if (s.position === 0) throw this.refuse(order, "reduce-only order on a flat position");
      if (Math.sign(s.position) === sideSign(order.side)) throw this.refuse(order, "reduce-only order would grow the position");
      // Venues cut a reduce-only order down to the position rather than let it flip it.
      qty = Math.min(qty, Math.abs(s.position));
    }

    const record: OrderRecord = {
      clientOrderId: order.clientOrderId,
      exchangeOrderId: this.nextExchangeOrderId(),
      symbol: order.symbol,
      side: order.side,
      qty,
      status: "open",
      filledQty: 0,
      avgPrice: null,
      reduceOnly: order.reduceOnly,
    };
    this.book.set(record.clientOrderId, record);

    const firstFill = fillRatio >= 1 ? qty : floorToStep(qty * fillRatio, s);
    if (firstFill > 0) this.fill(record, firstFill);
    if (LIVE_STATUSES.includes(record.status) && completeAfterMs !== undefined) {
      const id = record.clientOrderId;
      this.schedule(this.clockMs + completeAfterMs, () => {
        const r = this.book.get(id);
        // Canceled in the meantime: there is nothing left to fill.
        if (r && LIVE_STATUSES.includes(r.status)) this.fill(r, r.qty - r.filledQty);
      });
    }
    return snapshot(record);
  }

  private fill(record: OrderRecord, wanted: number): void {
    const s = this.symbol(record.symbol);
    const sign = sideSign(record.side);
    let qty = wanted;
    if (record.reduceOnly) {
      // The position may have shrunk since acceptance (e.g. closed by hand): never cross zero.
      const reducible = Math.sign(s.position) === -sign ? Math.abs(s.position) : 0;
      qty = Math.min(qty, reducible);
    }
    if (qty > 0) {
      const before = record.filledQty;
      record.filledQty = roundToStep(before + qty, s);
      record.avgPrice = ((record.avgPrice ?? 0) * before + s.price * qty) / record.filledQty;
      s.position = roundToStep(s.position + sign * qty, s);
    }
    if (record.filledQty >= record.qty) record.status = "filled";
    else if (qty < wanted)
      record.status = "canceled"; // reduce-only remainder with nothing left to reduce
    else record.status = record.filledQty > 0 ? "partially_filled" : "open";
  }

  /** Records the refusal (the venue keeps it in history) and returns the error to throw. */
  private refuse(order: NewOrder, reason: string): OrderRejectedError {
    this.book.set(order.clientOrderId, {
      clientOrderId: order.clientOrderId,
      exchangeOrderId: this.nextExchangeOrderId(),
      symbol: order.symbol,
      side: order.side,
      qty: order.qty,
      status: "rejected",
      filledQty: 0,
      avgPrice: null,
      reduceOnly: order.reduceOnly ?? false,
    });
    return new OrderRejectedError(order.clientOrderId, reason);
  }

  private takeFault(call: Call): SimFault | undefined {
    for (let i = this.faults.length - 1; i >= 0; i--) {
      const until = this.faults[i]!.fault.untilMs;
      if (until !== undefined && this.clockMs >= until) this.faults.splice(i, 1);
    }
    const index = this.faults.findIndex((q) => matches(q.fault, call));
    const queued = this.faults[index];
    if (!queued) return undefined;
    queued.left -= 1;
    if (queued.left <= 0) this.faults.splice(index, 1);
    return queued.fault;
  }

  private schedule(at: number, run: () => void): void {
    this.scheduled.push({ at, seq: this.seq++, run });
  }

  private nextEvent(): ScheduledEvent | undefined {
    let first: ScheduledEvent | undefined;
    for (const e of this.scheduled) {
      if (!first || e.at < first.at || (e.at === first.at && e.seq < first.seq)) first = e;
    }
    return first;
  }

  private walk(): void {
    for (const s of this.symbols.values()) {
      const step = (s.random() * 2 - 1) * this.volatility;
      // Multiplicative, so a price can never reach zero; rounded so prices print cleanly.
      s.price = Number((s.price * (1 + step)).toFixed(8));
    }
  }

  private symbol(symbol: string): SymbolState {
    const s = this.symbols.get(symbol);
    if (!s) throw new RangeError(`unknown symbol ${symbol}`);
    return s;
  }

  private nextExchangeOrderId(): string {
    this.exchangeIds += 1;
    return `${this.name}-${this.exchangeIds}`;
  }
}

function matches(fault: SimFault, call: Call): boolean {
  if (fault.on !== call.on) return false;
  const filter = fault as { symbol?: string; clientOrderId?: string };
  if (filter.symbol !== undefined && filter.symbol !== call.symbol) return false;
  if (filter.clientOrderId !== undefined && filter.clientOrderId !== call.clientOrderId) return false;
  return true;
}

function snapshot(record: OrderRecord): ExchangeOrder {
  const { clientOrderId, exchangeOrderId, symbol, side, qty, status, filledQty, avgPrice } = record;
  return { clientOrderId, exchangeOrderId, symbol, side, qty, status, filledQty, avgPrice };
}

function sideSign(side: OrderSide): 1 | -1 {
  return side === "buy" ? 1 : -1;
}

function positive(value: number, what: string): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`${what} must be a finite number above 0, got ${value}`);
  return value;
}

/** Decimal places of a step such as 0.001, so sums of steps do not collect float dust. */
function decimalsOf(step: number): number {
  let decimals = 0;
  while (decimals < 12 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-9) decimals++;
  return decimals;
}

function roundToStep(value: number, s: Pick<SymbolState, "qtyStep" | "decimals">): number {
  return Number((Math.round(value / s.qtyStep) * s.qtyStep).toFixed(s.decimals)) + 0; // + 0 turns -0 into 0
}

function floorToStep(value: number, s: Pick<SymbolState, "qtyStep" | "decimals">): number {
  // The small nudge keeps 0.3 / 0.1 = 2.9999999999999996 from flooring to 2.
  return Number((Math.floor(value / s.qtyStep + 1e-9) * s.qtyStep).toFixed(s.decimals));
}

/** mulberry32: tiny, fast and good enough for a price walk; the same seed gives the same stream. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string, to give each symbol its own stream from one seed. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
