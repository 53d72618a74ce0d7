import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ACTION_BODY_LIMIT_BYTES, rejectRequest } from "@/lib/http/request-limits";
import { BOT_ID_MAX, parseBotFilter, parsePathId, SYMBOL_MAX } from "@/lib/path-ids";

describe("ids from a URL", () => {
  it("accepts any printable id up to the actions' bounds, as written", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).filter((s) => s.trim() !== "" && !/[\u0000-\u001f\u007f]/.test(s)), (s) => {
        expect(parsePathId("bot id", s)).toEqual({ ok: true, value: s });
      }),
    );
    expect(parsePathId("bot id", "'; DROP TABLE orders; --")).toEqual({ ok: true, value: "'; DROP TABLE orders; --" });
    expect(parsePathId("symbol", "x".repeat(SYMBOL_MAX)).ok).toBe(true);
  });

  it("refuses a missing, over-long or control-character id with a sentence naming it", () => {
    expect(parsePathId("bot id", "")).toEqual({ ok: false, message: "the bot id is missing" });
    expect(parsePathId("symbol", " ")).toMatchObject({ ok: false });
    expect(parsePathId("bot id", "b".repeat(BOT_ID_MAX + 1))).toEqual({ ok: false, message: `the bot id is ${BOT_ID_MAX + 1} characters long; no bot id is longer than ${BOT_ID_MAX}` });
    expect(parsePathId("symbol", "AAPL\u0000")).toMatchObject({ ok: false, message: expect.stringMatching(/control character/) });
    expect(parsePathId("symbol", "A\r\nB").ok).toBe(false);
  });

  it("reads ?bot= as every bot when absent or empty, and refuses it given twice", () => {
    expect(parseBotFilter([])).toEqual({ ok: true, value: null });
    expect(parseBotFilter([""])).toEqual({ ok: true, value: null });
    expect(parseBotFilter(["alpha"])).toEqual({ ok: true, value: "alpha" });
    expect(parseBotFilter(["alpha", "beta"])).toEqual({ ok: false, message: "give bot once" });
  });
});

describe("requests refused before Next's router", () => {
  const req = (over: Partial<{ method: string; pathname: string; headers: Record<string, string> }>) => ({
    method: over.method ?? "GET",
    pathname: over.pathname ?? "/",
    headers: new Headers(over.headers ?? {}),
  });

  it("refuses a path whose %-escapes are not UTF-8 with a 400, and lets every other path through", () => {
    for (const p of ["/bots/%A4", "/api/bots/%E0%A4%A/clear", "/bots/%", "/x/%zz"]) expect(rejectRequest(req({ pathname: p }))?.status).toBe(400);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 4 }), (segs) => {
        expect(rejectRequest(req({ pathname: `/${segs.map(encodeURIComponent).join("/")}` }))).toBeNull();
      }),
    );
  });

  it("refuses a POST declaring more than the limit (413) or no length at all (411), with or without Next-Action", () => {
    const post = (headers: Record<string, string>) => rejectRequest(req({ method: "POST", pathname: "/doubtful", headers }));
    for (const action of [{ "next-action": "abc" }, {}] as Record<string, string>[]) {
      expect(post({ ...action, "content-length": String(ACTION_BODY_LIMIT_BYTES) })).toBeNull();
      expect(post({ ...action, "content-length": String(ACTION_BODY_LIMIT_BYTES + 1) })?.status).toBe(413);
      expect(post({ ...action, "content-length": "lots" })?.status).toBe(413);
      expect(post(action)?.status).toBe(411);
    }
    expect(rejectRequest(req({ method: "GET", pathname: "/doubtful" }))).toBeNull();
  });
});
