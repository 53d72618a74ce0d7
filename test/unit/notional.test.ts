import { describe, expect, it } from "vitest";
import { notionalText, quoteCurrency } from "@/lib/text/notional";

describe("quoteCurrency", () => {
  it("reads the quote of a ccxt unified symbol, spot, perpetual or dated", () => {
    expect(quoteCurrency("BTC/USDT:USDT")).toBe("USDT");
    expect(quoteCurrency("ETH/USD:ETH")).toBe("USD");
    expect(quoteCurrency("BTC/USDC")).toBe("USDC");
    expect(quoteCurrency("BTC/USDT:USDT-261225")).toBe("USDT");
  });

  it("reads a known quote at the end of a concatenated symbol, the longest first", () => {
    expect(quoteCurrency("SOLUSDT")).toBe("USDT");
    expect(quoteCurrency("ETHUSDC")).toBe("USDC");
    expect(quoteCurrency("BTCUSD")).toBe("USD");
    expect(quoteCurrency("XBTEUR")).toBe("EUR");
    expect(quoteCurrency("BTCFDUSD")).toBe("FDUSD");
    expect(quoteCurrency("ethbtc")).toBe("BTC");
  });

  it("reads the second part of a separated symbol when it is a known quote", () => {
    expect(quoteCurrency("BTC-USDT")).toBe("USDT");
    expect(quoteCurrency("BTC-USD-SWAP")).toBe("USD");
    expect(quoteCurrency("ETH_USDC")).toBe("USDC");
    expect(quoteCurrency("BTC-PERP")).toBeNull();
  });

  it("knows no currency for a stock ticker rather than making one up", () => {
    for (const ticker of ["AAPL", "NVDA", "SPY", "MSFT", "BUSD", "SETH", ""]) expect(quoteCurrency(ticker), ticker).toBeNull();
  });
});

describe("notionalText", () => {
  it("values the size at the mark, in the symbol's quote currency", () => {
    expect(notionalText({ size: -98, symbol: "SOLUSDT", mark: 150 })).toEqual({ text: "14,700 USDT", title: null, missing: false });
    expect(notionalText({ size: 0.5, symbol: "BTC/USDT:USDT", mark: 60_000.4 })).toMatchObject({ text: "30,000 USDT" });
    expect(notionalText({ size: 3, symbol: "DOGEUSDT", mark: 0.12 })).toMatchObject({ text: "0.36 USDT" });
  });

  it("shows the number of a stock with the unknown currency in its title, not a made-up USD", () => {
    const n = notionalText({ size: 59, symbol: "NVDA", mark: 120 });
    expect(n.text).toBe("7,080");
    expect(n.title).toMatch(/quote ccy unknown/);
  });

  it("says which earlier cycle the mark comes from", () => {
    const n = notionalText({ size: 2, symbol: "ETHUSDT", mark: 3_000, markFrom: "05:31:02 UTC" });
    expect(n.text).toBe("6,000 USDT (mark from 05:31:02 UTC)");
    expect(n.title).toMatch(/latest cycle wrote none/);
  });

  it("says the journal has no mark, and why, instead of a blank", () => {
    const n = notionalText({ size: 2, symbol: "ETHUSDT", mark: null });
    expect(n).toMatchObject({ text: "no mark price in the journal", missing: true });
    expect(n.title).toMatch(/bot writes the venue's mark price/);
  });
});
