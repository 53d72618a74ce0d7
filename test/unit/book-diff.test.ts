import { describe, expect, it } from "vitest";
import { classifyDrift, diffBooks, diffLine } from "@/lib/reconcile/diff";

describe("classifyDrift", () => {
  it("is no drift below half a quantity step", () => {
    expect(classifyDrift({ ours: 1, theirs: 1.049, qtyStep: 0.1 })).toBe("none");
  });

  it("is a drift at exactly half a step", () => {
    expect(classifyDrift({ ours: 10, theirs: 10.5, qtyStep: 1 })).toBe("size_drift");
  });

  it("is an unknown position when the bot's book is flat", () => {
    expect(classifyDrift({ ours: 0, theirs: -3, qtyStep: 1 })).toBe("unknown_position");
  });

  it("reads float dust in a summed book as flat, so it cannot hide an unknown position", () => {
    expect(classifyDrift({ ours: 0.1 + 0.2 - 0.3, theirs: 2, qtyStep: 0.001 })).toBe("unknown_position");
  });

  it("is a size drift when both sides hold something different, including a flipped sign", () => {
    expect(classifyDrift({ ours: 500, theirs: 1000, qtyStep: 1 })).toBe("size_drift");
    expect(classifyDrift({ ours: 2, theirs: -2, qtyStep: 1 })).toBe("size_drift");
  });

  it("is a size drift when the exchange is flat and the bot is not", () => {
    expect(classifyDrift({ ours: 5, theirs: 0, qtyStep: 1 })).toBe("size_drift");
  });

  it("refuses a quantity step that is not positive", () => {
    expect(() => classifyDrift({ ours: 0, theirs: 0, qtyStep: 0 })).toThrow(RangeError);
  });
});

describe("diffLine", () => {
  it("gives the difference in units, in steps and as notional at the mark price", () => {
    const d = diffLine({ symbol: "BTCUSDT", ours: 0.5, theirs: 0.3, qtyStep: 0.001, markPrice: 60_000 });
    expect(d.difference).toBeCloseTo(-0.2, 12);
    expect(d.steps).toBeCloseTo(-200, 9);
    expect(d.driftNotional).toBeCloseTo(12_000, 6);
    expect(d.oursNotional).toBeCloseTo(30_000, 6);
    expect(d.theirsNotional).toBeCloseTo(18_000, 6);
  });

  it("leaves notional unknown, not zero, without a mark price", () => {
    const d = diffLine({ symbol: "X", ours: 1, theirs: 2, qtyStep: 1 });
    expect(d.driftNotional).toBeNull();
  });
});

describe("diffBooks", () => {
  it("covers every symbol either side knows and treats a missing side as flat", () => {
    const lines = diffBooks({
      ours: new Map([
        ["AAPL", 500],
        ["MSFT", 10],
      ]),
      theirs: new Map([
        ["AAPL", 500],
        ["TSLA", 7],
      ]),
      specFor: () => ({ qtyStep: 1 }),
    });
    expect(lines.map((l) => [l.symbol, l.drift])).toEqual([
      ["AAPL", "none"],
      ["MSFT", "size_drift"],
      ["TSLA", "unknown_position"],
    ]);
  });

  it("finds the double buy: 1,000 held where the bot decided 500", () => {
    const [line] = diffBooks({ ours: new Map([["AAPL", 500]]), theirs: new Map([["AAPL", 1000]]), specFor: () => ({ qtyStep: 1, markPrice: 92 }) });
    expect(line).toMatchObject({ drift: "size_drift", difference: 500, driftNotional: 46_000 });
  });
});
