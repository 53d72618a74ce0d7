import { describe, expect, it } from "vitest";
import { farFromMark, PRICE_SANITY_FACTOR, priceRatio, roundedMark } from "@/lib/journal/price-sanity";

describe("a price far from the mark reads as a slipped decimal point", () => {
  it("catches a one-place slip even when the mark is a little above the real price", () => {
    // The try-out: 98 SOLUSDT filled at 153, typed 1530, the mark 153.056 (1530 / 153.056 = 9.996).
    expect(farFromMark(1530, 153.056)).toBe(true);
    expect(farFromMark(15.3, 153.056)).toBe(true);
    expect(priceRatio(1530, 153.056)).toBe("×10.0");
    expect(priceRatio(15.3, 153.056)).toBe("÷10.0");
  });

  it("lets a price within ×3 and ÷3 of the mark through, a real move included", () => {
    expect(PRICE_SANITY_FACTOR).toBe(3);
    for (const price of [153, 160, 100, 300, 459, 51.1]) expect(farFromMark(price, 153), String(price)).toBe(false);
    expect(farFromMark(459.1, 153)).toBe(true);
    expect(farFromMark(50.9, 153)).toBe(true);
  });

  it("says a ratio of a hundred or more in whole numbers", () => {
    expect(priceRatio(153_000, 153)).toBe("×1,000");
  });

  it("shows the mark to six significant digits, as a person compares it", () => {
    // A mark from the exchange, as the try-out met it in the refusal.
    expect(roundedMark(60240.7990178)).toBe("60,240.8");
    expect(roundedMark(153.056)).toBe("153.056");
    expect(roundedMark(0.000123456789)).toBe("0.000123457");
  });
});
