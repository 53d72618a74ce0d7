/**
 * The demo's strategies: pure functions from a symbol's recent bar closes (and the side the bot
 * holds) to the side it wants: long (1), flat (0) or short (-1). They never size, never send and
 * never look at the clock: the bot turns a stance into a decision on its bar.
 */

export type Stance = -1 | 0 | 1;

export interface StrategyInput {
  symbol: string;
  /** Closes of the last bars, oldest first; the last one is the newest. */
  closes: readonly number[];
  /** The side the bot's book holds now. */
  current: Stance;
}

export interface Strategy {
  /** Written to orders.strategy; part of the client order id's seed. */
  readonly name: string;
  /** Closes needed before the strategy may decide. */
  readonly lookback: number;
  decide(input: StrategyInput): Stance;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Long when the fast average is above the slow one by more than the band, short when below. */
export function smaCross(p: { fast: number; slow: number; band: number }): Strategy {
  return {
    name: "sma_cross",
    lookback: p.slow,
    decide({ closes, current }) {
      const fast = mean(closes.slice(-p.fast));
      const slow = mean(closes.slice(-p.slow));
      if (fast > slow * (1 + p.band)) return 1;
      if (fast < slow * (1 - p.band)) return -1;
      return current;
    },
  };
}

/** Donchian breakout: enter on a new `entry`-bar high or low, leave on an `exit`-bar low or high. */
export function breakout(p: { entry: number; exit: number }): Strategy {
  return {
    name: "breakout",
    lookback: p.entry + 1,
    decide({ closes, current }) {
      const last = closes[closes.length - 1];
      if (last === undefined) return current;
      const before = closes.slice(0, -1);
      const entryWindow = before.slice(-p.entry);
      const exitWindow = before.slice(-p.exit);
      if (current === 1 && last < Math.min(...exitWindow)) return 0;
      if (current === -1 && last > Math.max(...exitWindow)) return 0;
      if (current === 0 && last > Math.max(...entryWindow)) return 1;
      if (current === 0 && last < Math.min(...entryWindow)) return -1;
      return current;
    },
  };
}

/** Fades a stretch: short above `entryZ` standard deviations, long below; out near the mean. */
export function meanRevert(p: { lookback: number; entryZ: number; exitZ: number }): Strategy {
  return {
    name: "mean_revert",
    lookback: p.lookback,
    decide({ closes, current }) {
      const window = closes.slice(-p.lookback);
      const m = mean(window);
      const sd = Math.sqrt(mean(window.map((x) => (x - m) ** 2)));
      const last = window[window.length - 1];
      if (last === undefined || sd === 0) return current;
      const z = (last - m) / sd;
      if (current === 1) return z > -p.exitZ ? 0 : 1;
      if (current === -1) return z < p.exitZ ? 0 : -1;
      if (z > p.entryZ) return -1;
      if (z < -p.entryZ) return 1;
      return 0;
    },
  };
}

/**
 * A strategy whose stance a script sets, for scenarios that need an exact decision on an exact bar
 * ("buy 500 AAPL at 92"). Until told otherwise it keeps what the bot holds.
 */
export class ScriptedStrategy implements Strategy {
  readonly lookback = 0;
  private readonly stances = new Map<string, Stance>();
  constructor(readonly name: string) {}

  set(symbol: string, stance: Stance): this {
    this.stances.set(symbol, stance);
    return this;
  }

  decide({ symbol, current }: StrategyInput): Stance {
    return this.stances.get(symbol) ?? current;
  }
}
