/**
 * The two demo accounts and what they trade: realistic quantity steps, prices and trade sizes.
 * "alpha" trades crypto perpetuals, "beta" US equities; each is its own account on its own
 * simulated venue, and both write to the same journal file.
 */
import type { Strategy } from "./strategies";
import { breakout, meanRevert, smaCross } from "./strategies";

export interface MarketSpec {
  symbol: string;
  /** The venue's quantity step: every order quantity is a multiple of it. */
  qtyStep: number;
  /** Starting price of the simulated walk. */
  price: number;
  /** Size of one entry, in quote currency; the quantity is this over the price, floored to the step. */
  notional: number;
}

export interface BotSpec {
  botId: string;
  /** Prefix of every client order id the bot makes (letters, digits, "_", ".", ":"). */
  prefix: string;
  /** The simulated venue's name, written to bots.exchange. */
  venue: string;
  /** Largest relative price move per simulated second on this venue. */
  volatility: number;
  markets: MarketSpec[];
  /** One strategy per symbol, so the bot's book per symbol is that strategy's position. */
  strategies: Record<string, Strategy>;
}

// Tuned for one-minute bars: each symbol trades a few times an hour, not every other bar.
const sma = smaCross({ fast: 8, slow: 30, band: 0.0015 });
const donchian = breakout({ entry: 40, exit: 20 });
const zscore = meanRevert({ lookback: 30, entryZ: 2.2, exitZ: 0 });

export const ALPHA: BotSpec = {
  botId: "alpha",
  prefix: "alpha",
  venue: "sim-perp",
  volatility: 0.0004,
  markets: [
    { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000, notional: 30_000 },
    { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000, notional: 30_000 },
    { symbol: "SOLUSDT", qtyStep: 0.1, price: 150, notional: 15_000 },
    { symbol: "BNBUSDT", qtyStep: 0.01, price: 580, notional: 15_000 },
    { symbol: "XRPUSDT", qtyStep: 1, price: 0.55, notional: 10_000 },
    { symbol: "DOGEUSDT", qtyStep: 1, price: 0.12, notional: 6_000 },
  ],
  strategies: { BTCUSDT: sma, ETHUSDT: sma, SOLUSDT: donchian, BNBUSDT: donchian, XRPUSDT: zscore, DOGEUSDT: zscore },
};

export const BETA: BotSpec = {
  botId: "beta",
  prefix: "beta",
  venue: "sim-stocks",
  volatility: 0.00025,
  markets: [
    { symbol: "AAPL", qtyStep: 1, price: 190, notional: 19_000 },
    { symbol: "MSFT", qtyStep: 1, price: 420, notional: 21_000 },
    { symbol: "NVDA", qtyStep: 1, price: 120, notional: 18_000 },
    { symbol: "TSLA", qtyStep: 1, price: 250, notional: 15_000 },
    { symbol: "AMZN", qtyStep: 1, price: 185, notional: 18_500 },
    { symbol: "SPY", qtyStep: 1, price: 550, notional: 27_500 },
  ],
  strategies: { AAPL: zscore, MSFT: zscore, NVDA: sma, TSLA: sma, AMZN: donchian, SPY: donchian },
};

export const DEMO_BOTS: readonly BotSpec[] = [ALPHA, BETA];

/** A copy of a spec with some strategies or markets replaced, for scenarios that script a bot. */
export function withOverrides(
  spec: BotSpec,
  overrides: { strategies?: Record<string, Strategy>; markets?: Record<string, Partial<Omit<MarketSpec, "symbol">>> },
): BotSpec {
  return {
    ...spec,
    markets: spec.markets.map((m) => ({ ...m, ...overrides.markets?.[m.symbol] })),
    strategies: { ...spec.strategies, ...overrides.strategies },
  };
}

// ---- quantities on a step ------------------------------------------------------------------------

/** Decimal places of a step such as 0.001, so sums of steps print without float dust. */
export function stepDecimals(step: number): number {
  let decimals = 0;
  while (decimals < 12 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-9) decimals++;
  return decimals;
}

export function roundToStep(value: number, step: number): number {
  return Number((Math.round(value / step) * step).toFixed(stepDecimals(step))) + 0;
}

export function floorToStep(value: number, step: number): number {
  // The nudge keeps 0.3 / 0.1 = 2.9999999999999996 from flooring to 2.
  return Number((Math.floor(value / step + 1e-9) * step).toFixed(stepDecimals(step))) + 0;
}

/** -1, 0 or 1: the side of a position, with anything under half a step read as flat. */
export function sideOf(size: number, step: number): -1 | 0 | 1 {
  if (Math.abs(size) < step / 2) return 0;
  return size > 0 ? 1 : -1;
}
