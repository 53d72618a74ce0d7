import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BOT_ID_MAX, botIdField, CLIENT_ORDER_ID_MAX, clientOrderIdField, SYMBOL_MAX, symbolField } from "@/lib/journal/ids";
import { parsePathId } from "@/lib/url-state/path-ids";

describe("id bounds", () => {
  it.each([
    ["bot id", botIdField, BOT_ID_MAX, 200],
    ["symbol", symbolField, SYMBOL_MAX, 100],
    ["client order id", clientOrderIdField, CLIENT_ORDER_ID_MAX, 200],
  ] as const)("a form's %s may be exactly its maximum long, not one character more", (_kind, field, max, expected) => {
    expect(max).toBe(expected);
    expect(field.safeParse("x".repeat(max)).success).toBe(true);
    expect(field.safeParse(`  ${"x".repeat(max)}  `).data).toBe("x".repeat(max));
    expect(field.safeParse("x".repeat(max + 1)).success).toBe(false);
    expect(field.safeParse("   ").success).toBe(false);
  });

  it("says which id is missing, and that an order id is too long", () => {
    expect(botIdField.safeParse("").error?.issues[0]?.message).toBe("Missing bot");
    expect(symbolField.safeParse(" ").error?.issues[0]?.message).toBe("Missing symbol");
    expect(clientOrderIdField.safeParse("x".repeat(CLIENT_ORDER_ID_MAX + 1)).error?.issues[0]?.message).toBe("Order id too long");
  });

  it("an id a URL accepts is one the action forms accept, and the other way round", () => {
    const id = (max: number) => fc.string({ minLength: 1, maxLength: max + 20 }).filter((s) => s.trim() === s && !/[\u0000-\u001f\u007f]/.test(s));
    fc.assert(
      fc.property(id(BOT_ID_MAX), id(SYMBOL_MAX), (bot, symbol) => {
        expect(parsePathId("bot id", bot).ok).toBe(botIdField.safeParse(bot).success);
        expect(parsePathId("symbol", symbol).ok).toBe(symbolField.safeParse(symbol).success);
      }),
    );
    expect(parsePathId("bot id", "b".repeat(BOT_ID_MAX + 1)).ok).toBe(false);
    expect(botIdField.safeParse("b".repeat(BOT_ID_MAX + 1)).success).toBe(false);
  });
});
