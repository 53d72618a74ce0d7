import { describe, expect, it } from "vitest";
import { toPgPlaceholders } from "@/lib/db/query";
import { doubtfulOrderSql } from "@/lib/journal/order-state";

describe("one SQL text for both engines", () => {
  it("numbers SQLite's ? placeholders for PostgreSQL, outside quotes, and quotes camelCase aliases", () => {
    expect(toPgPlaceholders(`SELECT bot_id AS botId, '?' AS q, "a?b" FROM t WHERE a = ? AND b IN (?, ?)`)).toBe(
      `SELECT bot_id AS "botId", '?' AS q, "a?b" FROM t WHERE a = $1 AND b IN ($2, $3)`,
    );
    expect(toPgPlaceholders(`SELECT x AS "botId" FROM t`)).toBe(`SELECT x AS "botId" FROM t`);
  });

  it("words the doubtful rule's canonical-time test in each engine's own pattern syntax", () => {
    expect(doubtfulOrderSql({ state: "s", updatedAt: "u", cutoffParam: "?" })).toContain("u NOT GLOB '[0-9][0-9][0-9][0-9]-");
    expect(doubtfulOrderSql({ state: "s", updatedAt: "u", cutoffParam: "?", dialect: "postgres" })).toContain(
      "u !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'",
    );
  });
});
