/**
 * The demo bot: a small multi-strategy bot written only against the journal writer library, the
 * way a bot author would use it. Each cycle it
 *
 *   1. beats its heartbeat, and looks again for orders a lookup found absent (see below);
 *   2. reconciles its book with the exchange (skipped by the writer while fills settle);
 *   3. polls its unsettled orders, and resends an order a lookup proved absent, with the same id;
 *   4. on the first cycle of a new bar, asks each strategy for a stance and turns a change into one
 *      order: an exit reduce-only (allowed while halted), an entry only while the breaker, read
 *      from the journal, is not halted.
 *
 * It never reads the wall clock: the bar of a decision is the start of the bar on its clock, so the
 * same decision after a restart has the same client order id and the exchange refuses a double.
 *
 * "Absent" is a lookup's answer at one instant: a request still on its way can land a moment later
 * (seed 004). Resending with the same id settles that, because the late copy is then refused as a
 * duplicate. An absent order the bot may not resend (an entry while halted) is looked up again every
 * cycle until its bar is old, so a late arrival reaches the book before a reconciliation could take
 * it for a position the bot never opened.
 */
import type Database from "better-sqlite3";
import {
  BreakerHaltedError,
  JournalWriter,
  RECONCILE_STRATEGY,
  type Alert,
  type OrderRowLite,
  type ReconcileReport,
  type SendOutcome,
} from "../../lib/bot/journal-writer";
import type { ExchangeAdapter } from "../../lib/exchange/adapter";
import type { Decision } from "../../lib/journal/client-order-id";
import { floorToStep, roundToStep, sideOf, type BotSpec, type MarketSpec } from "./markets";
import type { Stance } from "./strategies";

export interface MarketData {
  /** The last traded price of a symbol. */
  price(symbol: string): number;
}

/** One line of what the bot did, for a terminal or a test. */
export interface Activity {
  botId: string;
  at: string;
  kind: "order" | "resend" | "blocked" | "settled" | "alert";
  message: string;
  order?: OrderRowLite;
  alert?: Alert;
}

export interface DemoBotOptions {
  spec: BotSpec;
  db: Database.Database;
  exchange: ExchangeAdapter;
  market: MarketData;
  clock: () => Date;
  /** Backoff between send attempts; on simulated time it only moves the simulated clock. */
  sleep: (ms: number) => Promise<void>;
  barMs: number;
  /** An absent order is resent while its bar is at most this many bars old; later the strategy decides afresh. */
  resendBars?: number;
  retry?: { attempts: number; backoffMs: number };
  onActivity?: (a: Activity) => void;
}

export interface CycleReport {
  at: string;
  bar: string;
  /** True on the first cycle of a bar: the strategies decided. */
  decided: boolean;
  reconciliation: ReconcileReport;
  halted: boolean;
}

/** How many closes each symbol keeps: enough for every strategy, bounded whatever the run length. */
const KEEP_CLOSES = 64;

export function barStart(at: Date, barMs: number): string {
  return new Date(Math.floor(at.getTime() / barMs) * barMs).toISOString();
}

export class DemoBot {
  readonly spec: BotSpec;
  readonly writer: JournalWriter;
  private readonly market: MarketData;
  private readonly clock: () => Date;
  private readonly barMs: number;
  private readonly resendBars: number;
  private readonly onActivity?: (a: Activity) => void;
  private readonly markets: Map<string, MarketSpec>;
  private readonly closes = new Map<string, number[]>();
  /** Orders a lookup proved absent, waiting to be resent with their own id. */
  private readonly absent = new Map<string, OrderRowLite>();
  /** Symbols whose last compared books disagreed: a person judges them, the bot leaves them alone. */
  private drifting = new Set<string>();
  private lastObservedBar: string | null = null;
  private lastDecidedBar: string | null = null;

  constructor(opts: DemoBotOptions) {
    this.spec = opts.spec;
    this.market = opts.market;
    this.clock = opts.clock;
    this.barMs = opts.barMs;
    this.resendBars = opts.resendBars ?? 2;
    this.onActivity = opts.onActivity;
    this.markets = new Map(opts.spec.markets.map((m) => [m.symbol, m]));
    this.writer = new JournalWriter({
      db: opts.db,
      botId: opts.spec.botId,
      prefix: opts.spec.prefix,
      exchange: opts.exchange,
      qtyStepFor: (symbol) => this.markets.get(symbol)?.qtyStep,
      // A foreign position on a market this bot does not trade: any size there is a drift.
      unknownSymbolQtyStep: 1e-8,
      clock: opts.clock,
      sleep: opts.sleep,
      retry: opts.retry ?? { attempts: 3, backoffMs: 500 },
      onAlert: (alert) => this.emit("alert", alert.message, { alert }),
    });
  }

  get botId(): string {
    return this.spec.botId;
  }

  get symbols(): string[] {
    return [...this.markets.keys()];
  }

  /** Registers the bot (a halt already in the journal stays) and settles what a previous run left. */
  async start(): Promise<void> {
    this.writer.register();
    const report = await this.writer.recover();
    for (const id of report.absent) {
      const row = this.writer.order(id);
      if (row) this.absent.set(id, row);
    }
  }

  /** Records the current price as the close of the bar that just ended (also used to warm up). */
  observe(bar: string): void {
    if (bar === this.lastObservedBar) return;
    this.lastObservedBar = bar;
    for (const symbol of this.markets.keys()) {
      const list = this.closes.get(symbol) ?? [];
      list.push(this.market.price(symbol));
      if (list.length > KEEP_CLOSES) list.shift();
      this.closes.set(symbol, list);
    }
  }

  async cycle(): Promise<CycleReport> {
    const now = this.clock();
    const bar = barStart(now, this.barMs);
    this.writer.heartbeat();
    await this.lookAgainForAbsent();
    const reconciliation = await this.writer.reconcile({ symbols: this.symbols });
    if (reconciliation.outcome === "clean" || reconciliation.outcome === "drift") {
      this.drifting = new Set(reconciliation.lines.filter((l) => l.drift !== "none").map((l) => l.symbol));
    }
    const changed = await this.settle(bar);
    const decided = bar !== this.lastDecidedBar;
    if (decided) {
      this.observe(bar);
      this.lastDecidedBar = bar;
      // The book the reconciliation just compared is still the book unless an order settled since:
      // summing the fills again costs a walk over the bot's whole history.
      const compared = reconciliation.outcome === "clean" || reconciliation.outcome === "drift" ? reconciliation.lines : null;
      const book = compared && !changed ? new Map(compared.map((l) => [l.symbol, l.ours])) : this.writer.book();
      await this.decide(bar, book);
    }
    return { at: now.toISOString(), bar, decided, reconciliation, halted: this.writer.breaker().halted };
  }

  /** Symbols the bot may not touch this cycle: an order on them is unsettled or awaits its resend. */
  private busySymbols(): Set<string> {
    const busy = new Set(this.writer.unsettledOrders().map((o) => o.symbol));
    for (const o of this.absent.values()) busy.add(o.symbol);
    return busy;
  }

  private async lookAgainForAbsent(): Promise<void> {
    for (const id of [...this.absent.keys()]) {
      const after = await this.writer.refresh(id);
      if (after.state === "absent") continue;
      this.absent.delete(id);
      this.emit("settled", `${id} was absent and has appeared: ${after.state} (${after.filledQty}/${after.qty} ${after.symbol})`, { order: after });
    }
  }

  /**
   * Polls every unsettled order; resends, with the same id, what a lookup proved absent. Returns
   * whether any order changed (and with it, perhaps, the book).
   */
  private async settle(bar: string): Promise<boolean> {
    let changed = false;
    for (const order of this.writer.unsettledOrders()) {
      const after = await this.writer.refresh(order.clientOrderId);
      if (after.state === order.state && after.filledQty === order.filledQty) continue;
      changed = true;
      this.emit("settled", `${after.clientOrderId} ${order.state} -> ${after.state} (${after.filledQty}/${after.qty} ${after.symbol})`, { order: after });
      if (after.state === "absent") this.absent.set(after.clientOrderId, after);
    }
    const oldest = Date.parse(bar) - this.resendBars * this.barMs;
    for (const [id, order] of [...this.absent]) {
      // The reconcile closes are the writer's own business: the next cycle recomputes them.
      if (order.strategy === RECONCILE_STRATEGY || Date.parse(order.bar) < oldest) {
        this.absent.delete(id);
        continue;
      }
      const reduceOnly = this.isReduction(order);
      if (!reduceOnly && this.writer.breaker().halted) continue; // kept until its bar is too old
      this.absent.delete(id);
      const decision: Decision = { strategy: order.strategy, symbol: order.symbol, side: order.side, qty: order.qty, bar: order.bar };
      await this.send(decision, reduceOnly, true);
      changed = true;
    }
    return changed;
  }

  private isReduction(order: Pick<OrderRowLite, "symbol" | "side" | "qty">): boolean {
    const market = this.markets.get(order.symbol);
    const size = this.writer.book().get(order.symbol) ?? 0;
    if (!market || sideOf(size, market.qtyStep) === 0) return false;
    const sign = order.side === "buy" ? 1 : -1;
    return Math.sign(size) === -sign && order.qty <= Math.abs(size) + market.qtyStep / 2;
  }

  private async decide(bar: string, book: ReadonlyMap<string, number>): Promise<void> {
    const busy = this.busySymbols();
    for (const market of this.markets.values()) {
      const strategy = this.spec.strategies[market.symbol];
      if (!strategy || busy.has(market.symbol) || this.drifting.has(market.symbol)) continue;
      const closes = this.closes.get(market.symbol) ?? [];
      if (closes.length < strategy.lookback) continue;
      const size = book.get(market.symbol) ?? 0;
      const current = sideOf(size, market.qtyStep);
      const wanted: Stance = strategy.decide({ symbol: market.symbol, closes, current });
      if (wanted === current) continue;
      if (current !== 0) {
        // Out first and in on a later bar: one order per symbol and bar, and an exit is always a
        // reduction, which a halted bot may still make.
        const exit: Decision = {
          strategy: strategy.name,
          symbol: market.symbol,
          side: current > 0 ? "sell" : "buy",
          qty: roundToStep(Math.abs(size), market.qtyStep),
          bar,
        };
        await this.send(exit, true, false);
        continue;
      }
      const qty = floorToStep(market.notional / this.market.price(market.symbol), market.qtyStep);
      if (!(qty > 0)) continue;
      await this.send({ strategy: strategy.name, symbol: market.symbol, side: wanted > 0 ? "buy" : "sell", qty, bar }, false, false);
    }
  }

  private async send(decision: Decision, reduceOnly: boolean, resend: boolean): Promise<SendOutcome | null> {
    let outcome: SendOutcome;
    try {
      outcome = await this.writer.sendOnce(decision, { reduceOnly });
    } catch (error) {
      if (!(error instanceof BreakerHaltedError)) throw error;
      this.emit("blocked", `no new ${decision.side} of ${decision.qty} ${decision.symbol} (${decision.strategy}): halted, ${error.reason ?? "no reason"}`);
      return null;
    }
    const o = outcome.order;
    const price = o.avgPrice === null ? "" : ` @ ${Number(o.avgPrice.toPrecision(8))}`;
    this.emit(
      resend ? "resend" : "order",
      `${o.side} ${o.qty} ${o.symbol}${reduceOnly ? " reduce-only" : ""} (${o.strategy}) -> ${o.state}${price} [${o.clientOrderId}]`,
      { order: o },
    );
    return outcome;
  }

  private emit(kind: Activity["kind"], message: string, extra: Partial<Activity> = {}): void {
    this.onActivity?.({ botId: this.botId, at: this.clock().toISOString(), kind, message, ...extra });
  }
}
