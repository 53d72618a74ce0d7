/**
 * Whether an average price typed by a person reads as a slipped decimal point against the symbol's
 * last mark. Pure: the resolve-by-hand action refuses with it, and its form says the same band.
 *
 * Three, not ten: a one-place slip is about ten times the real price, so against a mark a little
 * above that price (1530 typed for 153, mark 153.056) a ten-times band let it through. A fill
 * beyond three times, or under a third of, the market is a typo far more often than a trade; an
 * operator who knows such a fill says so ("The price is right").
 */
export const PRICE_SANITY_FACTOR = 3;

/** True when the price is beyond ×PRICE_SANITY_FACTOR or ÷PRICE_SANITY_FACTOR of the mark (a mark above 0). */
export function farFromMark(price: number, mark: number): boolean {
  return price > mark * PRICE_SANITY_FACTOR || price * PRICE_SANITY_FACTOR < mark;
}

/** `×10.0` or `÷10.0`: how many times the price is above or below the mark. */
export function priceRatio(price: number, mark: number): string {
  const r = price >= mark ? price / mark : mark / price;
  return `${price >= mark ? "×" : "÷"}${r < 100 ? r.toFixed(1) : Math.round(r).toLocaleString("en-US")}`;
}

// Six significant digits: a mark read from the exchange can carry a dozen (60240.7990178), which only
// hid the comparison the reader is asked to make.
const markFormat = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 6 });

/** The mark as a person compares it with what they typed: `60,240.8`, `153.056`. */
export const roundedMark = (mark: number): string => markFormat.format(mark);
