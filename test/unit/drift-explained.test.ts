import { describe, expect, it } from "vitest";
import { explainDrift, ifFilled, type ExplainingOrder } from "@/lib/reconcile/drift-explained";

const buy = (clientOrderId: string, qty: number, filledQty = 0): ExplainingOrder => ({ clientOrderId, side: "buy", qty, filledQty });
const sell = (clientOrderId: string, qty: number, filledQty = 0): ExplainingOrder => ({ clientOrderId, side: "sell", qty, filledQty });

describe("which doubtful orders would explain a drift if filled", () => {
  it("names the unknown buy of 98 behind SOLUSDT +98 against a flat book", () => {
    expect(explainDrift({ ours: 0, theirs: 98, qtyStep: 1 }, [buy("dw-a", 98)])).toEqual({ clientOrderIds: ["dw-a"], ifFilled: 98 });
  });

  it("counts only what the book does not already hold of a partly filled order", () => {
    expect(ifFilled(buy("x", 98, 30))).toBe(68);
    expect(explainDrift({ ours: 30, theirs: 98, qtyStep: 1 }, [buy("dw-a", 98, 30)])).toEqual({ clientOrderIds: ["dw-a"], ifFilled: 68 });
  });

  it("reads a sell as a negative gap, and a buy never explains the exchange holding less", () => {
    expect(explainDrift({ ours: 0.5, theirs: 0.2, qtyStep: 0.001 }, [sell("dw-s", 0.3)])).toEqual({ clientOrderIds: ["dw-s"], ifFilled: -0.3 });
    expect(explainDrift({ ours: 0.5, theirs: 0.2, qtyStep: 0.001 }, [buy("dw-b", 0.3)])).toBeNull();
  });

  it("matches awkward decimals within half a step: 0.1 + 0.2 explains 0.3, shown without float dust", () => {
    const r = explainDrift({ ours: 0, theirs: 0.3, qtyStep: 0.1 }, [buy("dw-1", 0.1), buy("dw-2", 0.2)]);
    expect(r).toEqual({ clientOrderIds: ["dw-1", "dw-2"], ifFilled: 0.3 });
    // A book summed from many fills carries dust too.
    expect(explainDrift({ ours: 0.30000000000000004, theirs: 1.0, qtyStep: 0.001 }, [buy("dw-3", 0.7)])).toEqual({ clientOrderIds: ["dw-3"], ifFilled: 0.7 });
    expect(explainDrift({ ours: 0, theirs: 0.75, qtyStep: 0.25 }, [buy("dw-q", 0.75)])).toEqual({ clientOrderIds: ["dw-q"], ifFilled: 0.75 });
  });

  it("does not stretch the tolerance: a gap off by half a step or more is not explained", () => {
    expect(explainDrift({ ours: 0, theirs: 98.5, qtyStep: 1 }, [buy("dw-a", 98)])).toBeNull();
    expect(explainDrift({ ours: 0, theirs: 98.4, qtyStep: 1 }, [buy("dw-a", 98)])).toEqual({ clientOrderIds: ["dw-a"], ifFilled: 98 });
    expect(explainDrift({ ours: 0, theirs: 0.0125, qtyStep: 0.001 }, [buy("dw-a", 0.012)])).toBeNull();
  });

  it("prefers the fewest orders, then the earliest", () => {
    const orders = [buy("dw-1", 2), buy("dw-2", 3), buy("dw-3", 5), buy("dw-4", 5)];
    expect(explainDrift({ ours: 0, theirs: 5, qtyStep: 1 }, orders)).toEqual({ clientOrderIds: ["dw-3"], ifFilled: 5 });
    expect(explainDrift({ ours: 0, theirs: 7, qtyStep: 1 }, orders)).toEqual({ clientOrderIds: ["dw-1", "dw-3"], ifFilled: 7 });
    expect(explainDrift({ ours: 0, theirs: 15, qtyStep: 1 }, orders)).toEqual({ clientOrderIds: ["dw-1", "dw-2", "dw-3", "dw-4"], ifFilled: 15 });
  });

  it("explains nothing on a line in sync, nor with orders fully counted in the book", () => {
    expect(explainDrift({ ours: 98, theirs: 98.2, qtyStep: 1 }, [buy("dw-a", 98)])).toBeNull();
    expect(explainDrift({ ours: 0, theirs: 98, qtyStep: 1 }, [buy("dw-a", 98, 98)])).toBeNull();
    expect(explainDrift({ ours: 0, theirs: 98, qtyStep: 1 }, [])).toBeNull();
  });

  it("with more orders than it combines, still finds the one order that explains the gap", () => {
    const many = Array.from({ length: 14 }, (_, i) => buy(`dw-${i}`, 1 + i * 0.001));
    expect(explainDrift({ ours: 0, theirs: 1.007, qtyStep: 0.001 }, many)).toEqual({ clientOrderIds: ["dw-7"], ifFilled: 1.007 });
    expect(explainDrift({ ours: 0, theirs: 2.001, qtyStep: 0.001 }, many)).toBeNull();
  });
});
