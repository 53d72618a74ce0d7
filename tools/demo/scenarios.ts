/**
 * The named scenarios: each a short, deterministic story of the two demo bots on one journal file,
 * in which one thing goes wrong the way the seeds describe. The integration tests run them and
 * assert the journal; `npm run scenario -- <name>` runs one and prints what it wrote; the live demo
 * injects the same incidents into its running bots.
 *
 * The bot the incident hits trades a scripted strategy, so the decision is exact ("buy 500 AAPL at
 * 92"); the other bot trades its normal strategies next to it, on the same file, and must stay clean.
 */
import { DuplicateClientOrderIdError } from "../../lib/exchange/adapter";
import { migrateJournal, openJournalReader } from "../../lib/db/journal-file";
import { clientOrderId } from "../../lib/journal/client-order-id";
import type { Activity } from "./bot";
import { applyFault, type DemoFault } from "./faults";
import { ALPHA, BETA, withOverrides, type BotSpec } from "./markets";
import { ScriptedStrategy } from "./strategies";
import { DemoWorld } from "./world";

export const SCENARIO_NAMES = ["double-buy-avoided", "lost-reply-unknown", "unknown-position", "size-drift", "in-flight", "quiet-day"] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface ScenarioRunOptions {
  /** A journal file: created and migrated if missing; it must have no bots yet. */
  file: string;
  seed?: number;
  migrationsDir?: string;
  onActivity?: (a: Activity) => void;
  /**
   * What a person does once the incident has played out, before the world closes: act on the
   * journal, then cycle the bots to see what they make of it (the tests' console side).
   */
  afterwards?: (run: { world: DemoWorld; cycle: (n?: number) => Promise<void> }) => Promise<void>;
}

export interface BotOutcome {
  botId: string;
  halted: boolean;
  reason: string | null;
  /** The bot's book (its strategies' fills), per symbol it trades. */
  book: Record<string, number>;
  /** What the venue holds on the bot's account, per symbol it trades. */
  exchange: Record<string, number>;
  /** What was changed on the account by hand, per symbol. */
  injected: Record<string, number>;
}

export interface ScenarioResult {
  name: ScenarioName;
  file: string;
  /** Simulated time of the first and the last cycle. */
  from: string;
  to: string;
  cycles: number;
  bots: BotOutcome[];
  /** What happened, in order, in words. */
  story: string[];
  /** Observations made during the run that the journal cannot show afterwards. */
  facts: Record<string, unknown>;
}

export interface Scenario {
  name: ScenarioName;
  title: string;
  /** What happens, and what the journal shows afterwards. */
  summary: string;
  /** The bot the incident hits. */
  botId: string;
  /**
   * The incident as the live demo injects it into a running bot: the same faults, on whichever
   * order or position comes next, and bounded so the demo recovers from lookups that fail.
   */
  demoIncident: DemoFault[];
  run(opts: ScenarioRunOptions): Promise<ScenarioResult>;
}

/** Scenarios step ten simulated seconds per cycle and decide on one-minute bars. */
const CYCLE_MS = 10_000;
const BAR_MS = 60_000;

/** A spec whose every symbol trades one scripted strategy: nothing happens until the script says. */
function scripted(spec: BotSpec, name: string, markets?: Parameters<typeof withOverrides>[1]["markets"]): { spec: BotSpec; script: ScriptedStrategy } {
  const script = new ScriptedStrategy(name);
  const strategies = Object.fromEntries(spec.markets.map((m) => [m.symbol, script]));
  return { spec: withOverrides(spec, { strategies, markets }), script };
}

class Run {
  readonly story: string[] = [];
  readonly facts: Record<string, unknown> = {};
  cycles = 0;
  private from: string;

  private constructor(
    readonly name: ScenarioName,
    readonly world: DemoWorld,
    private readonly cycleMs: number,
    private readonly afterwards?: ScenarioRunOptions["afterwards"],
  ) {
    this.from = world.now().toISOString();
  }

  static async open(name: ScenarioName, opts: ScenarioRunOptions, specs: BotSpec[], start: string, cycleMs = CYCLE_MS): Promise<Run> {
    migrateJournal(opts.file, { migrationsDir: opts.migrationsDir });
    const { db } = openJournalReader(opts.file, { migrationsDir: opts.migrationsDir });
    const bots = (db.prepare(`SELECT count(*) AS n FROM bots`).get() as { n: number }).n;
    db.close();
    if (bots > 0) throw new Error(`journal ${opts.file} already has bots: a scenario writes into a fresh journal`);
    const world = await DemoWorld.open({
      file: opts.file,
      seed: opts.seed ?? 7,
      start: new Date(start),
      specs,
      barMs: BAR_MS,
      cycleMs,
      migrationsDir: opts.migrationsDir,
      onActivity: opts.onActivity,
      // A simulated run can be rewritten: no fsync per commit (see WorldOptions.synchronous).
      synchronous: "NORMAL",
    });
    return new Run(name, world, cycleMs, opts.afterwards);
  }

  say(line: string): void {
    this.story.push(`${this.world.now().toISOString()} ${line}`);
  }

  fault(botId: string, fault: DemoFault): void {
    const done = applyFault(this.world, botId, fault);
    if (done === null) throw new Error(`scenario ${this.name}: fault ${fault.kind} did not apply to ${botId}`);
    this.say(`${botId}: ${done}`);
  }

  /**
   * `n` cycles of every bot: the first at the start instant, each later one a cycle length after
   * the previous. `before` runs once the clock has moved and before the bots look.
   */
  async cycle(n = 1, before?: () => void): Promise<void> {
    for (let i = 0; i < n; i++) {
      if (this.cycles > 0) this.world.advance(this.cycleMs);
      before?.();
      await this.world.cycle();
      this.cycles++;
    }
  }

  /** Cycles until the next bar has started (its first cycle is the one that decides). */
  async untilNextBar(): Promise<void> {
    const next = Math.floor(this.world.now().getTime() / BAR_MS) * BAR_MS + BAR_MS;
    while (this.world.now().getTime() < next) await this.cycle();
  }

  async finish(): Promise<ScenarioResult> {
    try {
      await this.afterwards?.({ world: this.world, cycle: (n) => this.cycle(n) });
      const bots = this.world.bots.map((bot): BotOutcome => {
        const sim = this.world.exchange(bot.botId);
        const book = bot.writer.book();
        const breaker = bot.writer.breaker();
        return {
          botId: bot.botId,
          halted: breaker.halted,
          reason: breaker.reason,
          book: Object.fromEntries(bot.symbols.map((s) => [s, book.get(s) ?? 0])),
          exchange: Object.fromEntries(bot.symbols.map((s) => [s, sim.position(s)])),
          injected: Object.fromEntries(this.world.injected(bot.botId)),
        };
      });
      return {
        name: this.name,
        file: this.world.file,
        from: this.from,
        to: this.world.now().toISOString(),
        cycles: this.cycles,
        bots,
        story: this.story,
        facts: this.facts,
      };
    } finally {
      this.world.close();
    }
  }
}

const doubleBuyAvoided: Scenario = {
  name: "double-buy-avoided",
  title: "The double buy at 15:31, avoided",
  summary:
    "beta buys 500 AAPL at 92; the exchange fills it and the reply is lost. The writer looks the client order id up " +
    "before any retry and finds the 500 filled, so nothing is sent twice; a blind retry of the same request (what the " +
    "naive bot of seed 004 did) is refused by the exchange as a duplicate. The book ends at 500, not 1,000.",
  botId: "beta",
  demoIncident: [{ kind: "lost_reply", fillRatio: 1 }],
  async run(opts) {
    // The seed's trade: 500 units at 92, the 46,000 the risk manager authorized.
    const { spec, script } = scripted(BETA, "media_movil", { AAPL: { notional: 46_000 } });
    const run = await Run.open("double-buy-avoided", opts, [ALPHA, spec], "2026-08-10T15:30:00.000Z");
    const sim = run.world.exchange("beta");
    sim.setPrice("AAPL", 92);
    script.set("AAPL", 1);
    run.fault("beta", { kind: "lost_reply", fillRatio: 1, symbol: "AAPL" });
    await run.cycle();
    // The id is the decision's, so anyone can recompute it: the same decision is the same order.
    const id = clientOrderId(spec.prefix, { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00.000Z" });
    const order = run.world.bot("beta").writer.order(id);
    if (!order) throw new Error(`scenario double-buy-avoided: no order ${id} in the journal`);
    run.say(`beta: the lookup of ${id} found it ${order.state}, ${order.filledQty} at ${order.avgPrice}`);

    // What the naive bot did next: the identical request again. The venue's id guard refuses it.
    try {
      await sim.createOrder({ clientOrderId: id, symbol: "AAPL", side: "buy", qty: 500 });
      run.facts.blindRetry = "accepted";
    } catch (error) {
      run.facts.blindRetry = error instanceof DuplicateClientOrderIdError ? "refused as a duplicate" : String(error);
    }
    run.say(`a blind retry of ${id}: ${String(run.facts.blindRetry)}`);
    run.facts.clientOrderId = id;
    await run.cycle(6);
    run.facts.exchangeOrders = sim.orders().filter((o) => o.symbol === "AAPL");
    return run.finish();
  },
};

/** How long the live demo's lost reply stays beyond the bot's own lookups. */
export const LOST_REPLY_DOUBT_MS = 5 * 60_000;

const lostReplyUnknown: Scenario = {
  name: "lost-reply-unknown",
  title: "A lost reply nobody can settle",
  summary:
    "alpha buys 0.5 BTCUSDT; the exchange fills it, the reply is lost, and every lookup of the id fails. The order " +
    "stays unknown, the breaker trips, and the bot sends nothing on top of the doubt: no retry, no close of the " +
    "position it cannot prove is its own, no new entries. The doubtful order waits for a person.",
  botId: "alpha",
  demoIncident: [
    // For five minutes of the venue's clock (the wall clock in the live demo, at any --speed) the
    // bot cannot look this order up, and only this order: long enough for a person to settle it
    // from the doubtful list, whose "Check on exchange" the venue gateway answers meanwhile. After
    // that the bot's next lookup settles it by itself. (A count of failing lookups, as before, was
    // used up by the bot's other lookups and by the console's own checks within a minute.)
    { kind: "lost_reply", fillRatio: 1, lookupsFailForMs: LOST_REPLY_DOUBT_MS },
  ],
  async run(opts) {
    const { spec, script } = scripted(ALPHA, "sma_cross", { BTCUSDT: { notional: 30_000 } });
    const run = await Run.open("lost-reply-unknown", opts, [spec, BETA], "2026-08-10T09:00:00.000Z");
    run.world.exchange("alpha").setPrice("BTCUSDT", 60_000);
    script.set("BTCUSDT", 1);
    run.fault("alpha", { kind: "lost_reply", fillRatio: 1, symbol: "BTCUSDT" });
    run.fault("alpha", { kind: "lookups_fail", times: Infinity, symbol: "BTCUSDT" });
    await run.cycle();
    run.say("alpha: the BTCUSDT order is unknown after its lookups failed; the breaker tripped");
    await run.untilNextBar();
    // The strategy now wants a new entry elsewhere: a halted bot must not make it.
    script.set("ETHUSDT", 1);
    await run.untilNextBar();
    await run.cycle(3);
    run.facts.exchangeOrders = run.world.exchange("alpha").orders();
    return run.finish();
  },
};

const unknownPosition: Scenario = {
  name: "unknown-position",
  title: "A position the bot never opened",
  summary:
    "Someone sells 25 SOLUSDT by hand on alpha's account; half fills and half rests on the book. At its next " +
    "reconciliation alpha finds -12.5 SOLUSDT its book never opened: it cancels the orders on SOLUSDT, closes the " +
    "position reduce-only and trips. While halted it still exits BTCUSDT (a reduction) but opens nothing new.",
  botId: "alpha",
  demoIncident: [{ kind: "foreign_position", units: 1, side: "sell" }],
  async run(opts) {
    const { spec, script } = scripted(ALPHA, "sma_cross");
    const run = await Run.open("unknown-position", opts, [spec, BETA], "2026-08-10T10:00:00.000Z");
    script.set("BTCUSDT", 1);
    await run.cycle(3);
    await run.world.foreignOrder("alpha", { clientOrderId: "web-7f3a9c", symbol: "SOLUSDT", side: "sell", qty: 25, fillRatio: 0.5 });
    run.say("someone sold 25 SOLUSDT by hand (order web-7f3a9c): 12.5 filled, 12.5 resting");
    await run.cycle();
    run.facts.foreignOrder = run.world
      .exchange("alpha")
      .orders()
      .find((o) => o.clientOrderId === "web-7f3a9c");
    await run.untilNextBar();
    script.set("ETHUSDT", 1).set("BTCUSDT", 0);
    await run.untilNextBar();
    await run.cycle(3);
    return run.finish();
  },
};

const sizeDrift: Scenario = {
  name: "size-drift",
  title: "A manual partial close",
  summary:
    "beta holds 100 AAPL and 50 MSFT. Someone closes 40 AAPL by hand. The next reconciliation finds book +100 against " +
    "exchange +60: a size drift, and the breaker trips. The bot leaves AAPL for a person to judge (no order on it, not " +
    "even the exit its strategy now wants), still exits MSFT reduce-only, and opens no NVDA.",
  botId: "beta",
  demoIncident: [{ kind: "manual_partial_close", fraction: 0.4 }],
  async run(opts) {
    const { spec, script } = scripted(BETA, "mean_revert");
    const run = await Run.open("size-drift", opts, [ALPHA, spec], "2026-08-10T14:00:00.000Z");
    const sim = run.world.exchange("beta");
    sim.setPrice("AAPL", 190);
    sim.setPrice("MSFT", 420);
    script.set("AAPL", 1).set("MSFT", 1);
    await run.cycle(3);
    run.fault("beta", { kind: "manual_partial_close", fraction: 0.4, symbol: "AAPL" });
    await run.cycle();
    await run.untilNextBar();
    script.set("AAPL", 0).set("MSFT", 0).set("NVDA", 1);
    await run.untilNextBar();
    await run.cycle(3);
    return run.finish();
  },
};

const inFlight: Scenario = {
  name: "in-flight",
  title: "Fills still settling",
  summary:
    "alpha buys 10 ETHUSDT; 4 fill at once, the other 6 fifteen seconds later. Meanwhile the exchange already holds " +
    "10 while the journal still says 4: a naive comparison would report a drift. The bot skips reconciliation while " +
    "the order is in flight, settles it, and the next reconciliation is clean: no false drift, no trip.",
  botId: "alpha",
  demoIncident: [{ kind: "partial_fill", fillRatio: 0.4, completeAfterMs: 15_000 }],
  async run(opts) {
    const { spec, script } = scripted(ALPHA, "breakout");
    const run = await Run.open("in-flight", opts, [spec, BETA], "2026-08-10T11:00:00.000Z");
    const sim = run.world.exchange("alpha");
    sim.setPrice("ETHUSDT", 3_000);
    script.set("ETHUSDT", 1);
    run.fault("alpha", { kind: "partial_fill", fillRatio: 0.4, completeAfterMs: 15_000, symbol: "ETHUSDT" });
    await run.cycle(2);
    // Past the fifteen seconds: the exchange has filled the rest, the journal has not heard yet.
    await run.cycle(1, () => {
      const naive = { ours: run.world.bot("alpha").writer.book().get("ETHUSDT") ?? 0, theirs: sim.position("ETHUSDT") };
      run.facts.naive = naive;
      run.say(`alpha: the exchange holds ${naive.theirs} ETHUSDT, the journal's fills say ${naive.ours}`);
    });
    await run.cycle(4);
    return run.finish();
  },
};

const quietDay: Scenario = {
  name: "quiet-day",
  title: "A quiet day",
  summary:
    "Both bots trade their normal strategies for a whole simulated day, reconciling every minute, and nothing goes " +
    "wrong: every order fills, every reconciliation is clean, nobody trips, and both books match the exchange.",
  botId: "alpha",
  demoIncident: [],
  async run(opts) {
    // A whole day of one-minute cycles.
    const run = await Run.open("quiet-day", opts, [ALPHA, BETA], "2026-08-11T00:00:00.000Z", BAR_MS);
    await run.cycle(1440);
    return run.finish();
  },
};

export const SCENARIOS: Record<ScenarioName, Scenario> = {
  "double-buy-avoided": doubleBuyAvoided,
  "lost-reply-unknown": lostReplyUnknown,
  "unknown-position": unknownPosition,
  "size-drift": sizeDrift,
  "in-flight": inFlight,
  "quiet-day": quietDay,
};

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}
