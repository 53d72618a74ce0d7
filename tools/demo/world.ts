/**
 * A demo world: the bots, one simulated venue (one account) each, and one journal file they share.
 * Time is simulated. It moves either in fixed steps without any real waiting (scenarios, tests, fast
 * history) or with the wall clock times a speed factor (the live demo); bots only ever see the
 * simulated clock, so what they write is the same either way.
 *
 * Everything done to a venue behind its bot's back (a position opened by hand, a partial close) goes
 * through here and is counted, so a test can check that the exchange holds exactly what the bot's
 * own orders filled plus what was done by hand.
 */
import type Database from "better-sqlite3";
import { openJournalWriter } from "../../lib/db/journal-file";
import type { OrderSide } from "../../lib/journal/contract";
import type { ExchangeAdapter } from "../../lib/exchange/adapter";
import { SimExchange } from "../../lib/exchange/simulator";
import { DemoBot, barStart, type Activity, type CycleReport } from "./bot";
import { DemoBybitVenue } from "./bybit-venue";
import { DEMO_BOTS, type BotSpec } from "./markets";
import { subSeed } from "./random";

export type WorldTiming = { mode: "simulated" } | { mode: "realtime"; speed: number };

/**
 * How each bot reaches its venue. "bybit-v5": the venue is served as Bybit V5 REST on loopback
 * (tools/demo/bybit-venue.ts) and the bot's writer sends, looks up and reads positions through
 * CcxtAdapter with its own signed key, as a real bot on Bybit does: what `npm run demo` runs.
 * "direct": the writer calls the simulator in-process, the same faults without the HTTP and ccxt
 * (scenarios, fast history and tests that run thousands of cycles).
 */
export type VenueLink = "direct" | "bybit-v5";

export interface WorldOptions {
  /** A migrated journal file (see migrateJournal). */
  file: string;
  seed: number;
  /** Simulated time of the first live cycle. Warm-up bars come before it and write nothing. */
  start: Date;
  specs?: readonly BotSpec[];
  barMs?: number;
  /** Simulated time between two cycles. Defaults to one bar. */
  cycleMs?: number;
  /** Bars of prices the strategies see before the first live cycle. */
  warmupBars?: number;
  timing?: WorldTiming;
  migrationsDir?: string;
  /**
   * SQLite `synchronous` for the bots' connections. FULL (the journal writer's setting) syncs every commit;
   * NORMAL, safe against corruption in WAL mode, may lose the last commits on power loss: fine for
   * writing simulated history fast, not for a real bot.
   */
  synchronous?: "FULL" | "NORMAL";
  retry?: { attempts: number; backoffMs: number };
  /** Default "direct". */
  venueLink?: VenueLink;
  onActivity?: (a: Activity) => void;
}

interface Member {
  bot: DemoBot;
  sim: SimExchange;
  db: Database.Database;
  /** Per symbol: size changed on the venue without any order of the bot. */
  injected: Map<string, number>;
  /** venueLink "bybit-v5": the venue the bot trades on through ccxt. */
  venue: DemoBybitVenue | null;
}

/** Where the world's clock starts: warm-up bars before the first live bar. */
function warmup(opts: WorldOptions): { barMs: number; warmupBars: number; firstBar: number; warmupStart: Date } {
  const barMs = opts.barMs ?? 60_000;
  const warmupBars = opts.warmupBars ?? 45;
  const firstBar = Date.parse(barStart(opts.start, barMs));
  return { barMs, warmupBars, firstBar, warmupStart: new Date(firstBar - warmupBars * barMs) };
}

const sleepWall = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class DemoWorld {
  readonly barMs: number;
  readonly cycleMs: number;
  readonly file: string;
  private readonly members = new Map<string, Member>();
  private readonly extraConnections: Database.Database[] = [];
  private readonly timing: WorldTiming;
  private readonly migrationsDir?: string;
  private clockMs: number;
  /** Realtime only: the simulated instant that matches `anchorWall`. */
  private anchorSim = 0;
  private anchorWall = 0;

  private constructor(opts: WorldOptions, venues: ReadonlyMap<string, { sim: SimExchange; venue: DemoBybitVenue | null }>) {
    this.file = opts.file;
    const { barMs, warmupBars, firstBar, warmupStart } = warmup(opts);
    this.barMs = barMs;
    this.cycleMs = opts.cycleMs ?? this.barMs;
    this.timing = opts.timing ?? { mode: "simulated" };
    this.migrationsDir = opts.migrationsDir;
    if (this.timing.mode === "realtime" && !(this.timing.speed > 0)) throw new RangeError(`speed must be above 0, got ${this.timing.speed}`);
    this.clockMs = warmupStart.getTime();

    for (const spec of opts.specs ?? DEMO_BOTS) {
      const { sim, venue } = venues.get(spec.botId)!;
      const { db } = openJournalWriter(opts.file, { migrationsDir: opts.migrationsDir });
      if (opts.synchronous) db.pragma(`synchronous = ${opts.synchronous}`);
      const exchange: ExchangeAdapter = venue ? venue.adapter("bot", { name: spec.venue, clock: () => sim.now() }) : sim;
      const bot = new DemoBot({
        spec,
        db,
        exchange,
        market: sim,
        clock: () => sim.now(),
        sleep: (ms) => this.backoff(sim, ms),
        barMs: this.barMs,
        retry: opts.retry,
        onActivity: opts.onActivity,
      });
      this.members.set(spec.botId, { bot, sim, db, injected: new Map(), venue });
    }

    // Warm-up: the strategies see bar closes from before the start; nothing is written.
    for (let i = warmupBars; i >= 1; i--) {
      const bar = firstBar - i * this.barMs;
      this.moveVenuesTo(bar);
      for (const m of this.members.values()) m.bot.observe(new Date(bar).toISOString());
    }
    this.moveVenuesTo(opts.start.getTime());
    this.clockMs = opts.start.getTime();
    this.anchorSim = this.clockMs;
    this.anchorWall = Date.now();
  }

  /** Builds the world and starts every bot (registration, recovery of what a previous run left). */
  static async open(opts: WorldOptions): Promise<DemoWorld> {
    const { warmupStart } = warmup(opts);
    const venues = new Map<string, { sim: SimExchange; venue: DemoBybitVenue | null }>();
    let world: DemoWorld | undefined;
    try {
      for (const spec of opts.specs ?? DEMO_BOTS) {
        if (venues.has(spec.botId)) throw new RangeError(`bot ${spec.botId} listed twice`);
        const sim = new SimExchange({
          seed: subSeed(opts.seed, spec.botId),
          name: spec.venue,
          startAt: warmupStart,
          volatility: spec.volatility,
          symbols: spec.markets.map((m) => ({ symbol: m.symbol, qtyStep: m.qtyStep, price: m.price })),
        });
        venues.set(spec.botId, { sim, venue: null });
        if (opts.venueLink === "bybit-v5") venues.set(spec.botId, { sim, venue: await DemoBybitVenue.serve({ sim, markets: spec.markets }) });
      }
      world = new DemoWorld(opts, venues);
      for (const m of world.members.values()) await m.bot.start();
      return world;
    } catch (error) {
      if (world) world.close();
      else for (const v of venues.values()) void v.venue?.close();
      throw error;
    }
  }

  get bots(): DemoBot[] {
    return [...this.members.values()].map((m) => m.bot);
  }

  bot(botId: string): DemoBot {
    return this.member(botId).bot;
  }

  exchange(botId: string): SimExchange {
    return this.member(botId).sim;
  }

  /** The Bybit V5 venue the bot trades on (venueLink "bybit-v5"), or null on a direct link. */
  bybitVenue(botId: string): DemoBybitVenue | null {
    return this.member(botId).venue;
  }

  now(): Date {
    return new Date(this.clockMs);
  }

  /** A separate connection to the journal, as another process (the console, a person) would have. */
  connection(): Database.Database {
    const { db } = openJournalWriter(this.file, { migrationsDir: this.migrationsDir });
    this.extraConnections.push(db);
    return db;
  }

  /** Simulated time of the wall clock's now (realtime), or the world's own clock. */
  targetTime(): number {
    if (this.timing.mode === "simulated") return this.clockMs;
    return Math.floor(this.anchorSim + (Date.now() - this.anchorWall) * this.timing.speed);
  }

  /** Moves the world's clock forward (never back); every venue follows. */
  advanceTo(ms: number): void {
    if (ms > this.clockMs) this.clockMs = ms;
    this.moveVenuesTo(this.clockMs);
  }

  advance(ms: number): void {
    this.advanceTo(this.clockMs + ms);
  }

  /** One cycle of every bot, at the world's current time. */
  async cycle(): Promise<CycleReport[]> {
    const reports: CycleReport[] = [];
    for (const m of this.members.values()) reports.push(await m.bot.cycle());
    return reports;
  }

  /** Simulated mode: one cycle length later, one cycle of every bot. */
  async step(): Promise<CycleReport[]> {
    this.advance(this.cycleMs);
    return this.cycle();
  }

  // ---- behind the bots' backs ----------------------------------------------------------------

  /** Sets a venue's position without any order of the bot: a manual trade or another system. */
  setPositionBehindBot(botId: string, symbol: string, size: number): void {
    const m = this.member(botId);
    const before = m.sim.position(symbol);
    m.sim.setPositionBehindBot(symbol, size);
    this.noteInjected(m, symbol, m.sim.position(symbol) - before);
  }

  /**
   * An order placed on the bot's account by someone else (by hand, on the venue's website), with an
   * id the bot never made. `fillRatio` below 1 leaves the rest resting on the book.
   */
  async foreignOrder(botId: string, order: { clientOrderId: string; symbol: string; side: OrderSide; qty: number; fillRatio?: number }): Promise<void> {
    const m = this.member(botId);
    const before = m.sim.position(order.symbol);
    if (order.fillRatio !== undefined && order.fillRatio < 1) {
      m.sim.inject({ on: "create", clientOrderId: order.clientOrderId, fault: "partial_fill", fillRatio: order.fillRatio });
    }
    await m.sim.createOrder({ clientOrderId: order.clientOrderId, symbol: order.symbol, side: order.side, qty: order.qty });
    this.noteInjected(m, order.symbol, m.sim.position(order.symbol) - before);
  }

  /** Per symbol, what was changed on the bot's venue without the bot's orders. */
  injected(botId: string): ReadonlyMap<string, number> {
    return this.member(botId).injected;
  }

  /** Closes the journal connections and stops the venues' servers (they stop listening at once). */
  close(): void {
    for (const db of this.extraConnections.splice(0)) if (db.open) db.close();
    for (const m of this.members.values()) {
      if (m.db.open) m.db.close();
      void m.venue?.close();
    }
  }

  // ---- internals ------------------------------------------------------------------------------

  private member(botId: string): Member {
    const m = this.members.get(botId);
    if (!m) throw new RangeError(`no bot ${botId} in this world`);
    return m;
  }

  private noteInjected(m: Member, symbol: string, delta: number): void {
    if (delta === 0) return;
    m.injected.set(symbol, (m.injected.get(symbol) ?? 0) + delta);
  }

  private moveVenuesTo(ms: number): void {
    for (const m of this.members.values()) {
      const behind = ms - m.sim.now().getTime();
      if (behind > 0) m.sim.advance(behind);
    }
  }

  /**
   * A bot's backoff between send attempts. Simulated: only its own venue's clock moves (so a late
   * order can appear in between). Realtime: a real wait, scaled by the speed, then the venue
   * catches up with the wall clock.
   */
  private async backoff(sim: SimExchange, ms: number): Promise<void> {
    if (this.timing.mode === "simulated") {
      sim.advance(ms);
      return;
    }
    await sleepWall(ms / this.timing.speed);
    const behind = this.targetTime() - sim.now().getTime();
    if (behind > 0) sim.advance(behind);
  }
}
