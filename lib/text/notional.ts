/**
 * What a position is worth, in words an on-call person can act on: the amount, the currency it is
 * in when the symbol tells it, and where the mark price came from. Pure, shared by the overview
 * and the symbol page.
 */

/**
 * Quote currencies recognised at the end of a concatenated symbol ("SOLUSDT", "XBTEUR"), longest
 * first so "USDT" wins over "USD" and "FDUSD" over "USD".
 */
const QUOTES = ["FDUSD", "USDT", "USDC", "BUSD", "TUSD", "USDE", "DAI", "USD", "EUR", "GBP", "JPY", "TRY", "BRL", "AUD", "CHF", "BTC", "ETH", "BNB"];

/**
 * The quote currency of a symbol, or null when the symbol does not say it (a stock ticker such as
 * "AAPL": guessing "USD" would be a made-up fact on the screen that matters most).
 *
 * - ccxt unified: "BTC/USDT:USDT" → USDT (the part after "/", before ":" or a dated suffix);
 * - separated: "BTC-USDT", "ETH_USDC", "BTC-USD-SWAP" → the second part when it is a known quote;
 * - concatenated: "SOLUSDT", "ETHUSDC", "BTCUSD", "XBTEUR" → a known quote at the end, after a
 *   base of at least two characters.
 */
export function quoteCurrency(symbol: string): string | null {
  const s = symbol.trim().toUpperCase();
  const unified = /^[A-Z0-9.]+\/([A-Z0-9]+)(?::|$)/.exec(s);
  if (unified) return unified[1]!;
  const parts = s.split(/[-_]/);
  if (parts.length > 1) return QUOTES.includes(parts[1]!) ? parts[1]! : null;
  if (!/^[A-Z0-9]+$/.test(s)) return null;
  for (const q of QUOTES) if (s.endsWith(q) && s.length - q.length >= 2) return q;
  return null;
}

/** How the notional of a drift reads: its number and unit, and a title that says what it rests on. */
export interface NotionalText {
  /** "7,350 USDT", "46,000" (currency unknown), or "no mark price in the journal". */
  text: string;
  /** What a hover explains: an unknown currency, an older mark, or why there is no value. */
  title: string | null;
  /** True when there is no value at all. */
  missing: boolean;
}

const amount = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: n !== 0 && Math.abs(n) < 100 ? 2 : 0 });

/**
 * The notional text of `size` units of `symbol` at `mark`. `markFrom` is the time ("05:31 UTC") of
 * an earlier cycle the mark was taken from when the latest one had none; the text then says so.
 */
export function notionalText(params: { size: number; symbol: string; mark: number | null; markFrom?: string | null }): NotionalText {
  const { size, symbol, mark } = params;
  if (mark === null || !Number.isFinite(mark)) {
    return {
      text: "no mark price in the journal",
      title:
        "The bot writes the venue's mark price with every reconciliation (reconciliation_positions.mark_price); this bot has written none for this symbol, so the gap has no value here.",
      missing: true,
    };
  }
  const quote = quoteCurrency(symbol);
  const value = amount(Math.abs(size) * mark);
  const parts: string[] = [];
  if (!quote) parts.push(`quote ccy unknown: ${symbol} does not name its quote currency`);
  if (params.markFrom) parts.push(`at the mark from ${params.markFrom}, the latest cycle wrote none`);
  return {
    text: `${value}${quote ? ` ${quote}` : ""}${params.markFrom ? ` (mark from ${params.markFrom})` : ""}`,
    title: parts.length > 0 ? `${parts.join("; ")}. Mark ${mark.toLocaleString("en-US", { maximumFractionDigits: 8 })}.` : null,
    missing: false,
  };
}
