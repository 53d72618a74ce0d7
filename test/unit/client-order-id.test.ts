import { describe, expect, it } from "vitest";
import { checkClientOrderId, clientOrderId, decisionSeed, InvalidDecisionError } from "@/lib/journal/client-order-id";
import { formatQty } from "@/lib/journal/qty";

const decision = { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" } as const;

describe("clientOrderId", () => {
  it("reproduces the contract's vector computed with Python's hashlib", () => {
    expect(clientOrderId("q500", decision)).toBe("q500-d802a55a0df8ed0d3231");
  });

  it("gives the same id for the same decision and another for any other field", () => {
    const id = clientOrderId("q500", decision);
    expect(clientOrderId("q500", { ...decision })).toBe(id);
    for (const change of [{ strategy: "x" }, { symbol: "MSFT" }, { side: "sell" as const }, { qty: 501 }, { bar: "2026-08-10T15:31:00Z" }]) {
      expect(clientOrderId("q500", { ...decision, ...change })).not.toBe(id);
    }
  });

  it("hashes exactly strategy|symbol|side|qty|bar", () => {
    expect(decisionSeed({ ...decision, qty: 0.25 })).toBe("media_movil|AAPL|buy|0.25|2026-08-10T15:30:00Z");
  });

  it("refuses a field containing the separator, which would make two decisions collide", () => {
    expect(() => clientOrderId("q500", { ...decision, strategy: "a|b" })).toThrow(InvalidDecisionError);
    expect(() => clientOrderId("q500", { ...decision, bar: "" })).toThrow(InvalidDecisionError);
  });

  it("refuses a prefix that would blur where the hash starts", () => {
    expect(() => clientOrderId("q-500", decision)).toThrow(InvalidDecisionError);
  });

  it("writes the compact form for venues whose ids are letters and digits only (OKX: at most 32)", () => {
    // The contract's vector without the dash: the same digest.
    expect(clientOrderId("q500", decision, "compact")).toBe("q500d802a55a0df8ed0d3231");
    const longest = clientOrderId("gamma1234567", decision, "compact");
    expect(longest).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(() => clientOrderId("gamma12345678", decision, "compact")).toThrow(/1 to 12 letters or digits/);
    expect(() => clientOrderId("q_500", decision, "compact")).toThrow(InvalidDecisionError);
  });
});

describe("formatQty", () => {
  it.each([
    [500, "500"],
    [0.25, "0.25"],
    [0.001, "0.001"],
    [1234.5, "1234.5"],
    [1e-7, "0.0000001"],
    [1e21, "1000000000000000000000"],
    [0.1 + 0.2, "0.30000000000000004"],
    [12.5e3, "12500"],
  ])("writes %s as %s", (qty, text) => {
    expect(formatQty(qty)).toBe(text);
  });

  it("round-trips every value it writes", () => {
    for (const q of [3, 0.5, 0.015, 7.000001, 123456.789, 2.5e-9]) expect(Number(formatQty(q))).toBe(q);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])("refuses %s", (qty) => {
    expect(() => formatQty(qty)).toThrow(RangeError);
  });
});

describe("checkClientOrderId", () => {
  const id = clientOrderId("q500", decision);

  it("accepts an id that carries the prefix and recomputes", () => {
    expect(checkClientOrderId(id, "q500", decision)).toEqual({ kind: "ok" });
  });

  it("flags an id without the bot's prefix as foreign", () => {
    expect(checkClientOrderId("manual-123", "q500", decision).kind).toBe("foreign");
    // The prefix followed by anything but a dash or 20 hex digits is another system's.
    expect(checkClientOrderId("q500manual", "q500", decision).kind).toBe("foreign");
    expect(checkClientOrderId("q5001-d802a55a0df8ed0d3231", "q500", decision).kind).toBe("foreign");
  });

  it("accepts the compact form, and flags a compact id that does not recompute as corrupt", () => {
    expect(checkClientOrderId("q500d802a55a0df8ed0d3231", "q500", decision)).toEqual({ kind: "ok" });
    expect(checkClientOrderId("q500d802a55a0df8ed0d3232", "q500", decision)).toMatchObject({ kind: "corrupt", expected: "q500d802a55a0df8ed0d3231" });
  });

  it("flags an id that does not recompute from its decision fields as corrupt", () => {
    const check = checkClientOrderId(id, "q500", { ...decision, qty: 5000 });
    expect(check).toMatchObject({ kind: "corrupt", expected: clientOrderId("q500", { ...decision, qty: 5000 }) });
  });
});
