import { describe, expect, it } from "vitest";
import { boundedLine, LimitedLog, WindowLimiter } from "@/lib/http/rate-window";

const t0 = Date.parse("2026-08-10T12:00:00Z");

describe("the per-client limit on action posts", () => {
  it("admits the limit in a window, refuses the next saying when to retry, and admits again in the next window", () => {
    const limiter = new WindowLimiter({ limit: 3, windowMs: 60_000, maxKeys: 100 });
    for (let i = 0; i < 3; i++) expect(limiter.take("address:10.0.0.1", t0 + i)).toEqual({ ok: true });
    expect(limiter.take("address:10.0.0.1", t0 + 20_000)).toEqual({ ok: false, retryAfterMs: 40_000 });
    expect(limiter.take("address:10.0.0.1", t0 + 60_000)).toEqual({ ok: true });
  });

  it("counts each key alone: a stranger's posts from the operator's address do not spend the operator's allowance", () => {
    const limiter = new WindowLimiter({ limit: 2, windowMs: 60_000, maxKeys: 100 });
    for (let i = 0; i < 10; i++) limiter.take("address:127.0.0.1", t0 + i);
    expect(limiter.take("address:127.0.0.1", t0 + 10).ok).toBe(false);
    expect(limiter.take("account:ana", t0 + 10).ok).toBe(true);
    expect(limiter.take("account:ana", t0 + 11).ok).toBe(true);
    expect(limiter.take("account:ana", t0 + 12).ok).toBe(false);
  });

  it("keeps at most maxKeys windows, forgetting the oldest first", () => {
    const limiter = new WindowLimiter({ limit: 1, windowMs: 60_000, maxKeys: 3 });
    for (const k of ["a", "b", "c"]) limiter.take(k, t0);
    expect(limiter.take("c", t0 + 1).ok).toBe(false);
    limiter.take("d", t0 + 2); // evicts "a"
    expect(limiter.take("a", t0 + 3).ok).toBe(true);
    expect(limiter.take("d", t0 + 4).ok).toBe(false);
  });
});

describe("the rate-limited server log for refusals", () => {
  const capture = (linesPerWindow = 3) => {
    const lines: string[] = [];
    return { lines, log: new LimitedLog({ linesPerWindow, windowMs: 60_000, maxLineChars: 80, write: (l) => lines.push(l) }) };
  };

  it("writes the window's budget of lines, counts the rest, and writes that count as one line when the next window opens", () => {
    const { lines, log } = capture();
    for (let i = 0; i < 1000; i++) log.line(`refused ${i}`, t0 + i);
    expect(lines).toEqual(["refused 0", "refused 1", "refused 2"]);
    log.line("refused later", t0 + 60_000);
    expect(lines.slice(3)).toEqual([
      expect.stringMatching(/^driftwatch: 997 more refused action posts were not logged \(at most 3 lines every 60 s\)$/),
      "refused later",
    ]);
  });

  it("bounds every line and replaces control and bidi characters, so a line cannot forge another or hide its text", () => {
    const { lines, log } = capture();
    log.line(`a\nforged: line\r\u202eevil\u0000${"x".repeat(500)}`, t0);
    expect(lines[0]!.length).toBe(80);
    expect(lines[0]).toMatch(/^a\?forged: line\?\?evil\?x+…$/);
    expect(boundedLine("short", 80)).toBe("short");
  });

  it("never throws, even when writing fails", () => {
    const log = new LimitedLog({
      linesPerWindow: 3,
      windowMs: 60_000,
      maxLineChars: 80,
      write: () => {
        throw new Error("disk full");
      },
    });
    expect(() => log.line("refused", t0)).not.toThrow();
  });
});
