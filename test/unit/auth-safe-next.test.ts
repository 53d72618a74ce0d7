import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/auth/safe-next";

describe("where sign-in goes next", () => {
  it.each([
    ["/", "/"],
    ["/doubtful", "/doubtful"],
    ["/bots/grid-1/symbols/BTCUSDT?range=1h#chart", "/bots/grid-1/symbols/BTCUSDT?range=1h#chart"],
    ["/incidents?from=2026-08-10T15:30:00Z", "/incidents?from=2026-08-10T15:30:00Z"],
    ["/a/../breakers", "/breakers"],
    ["/./doubtful?bot=grid-1#row-3", "/doubtful?bot=grid-1#row-3"],
    ["/incidents?next=//evil.example#//evil.example", "/incidents?next=//evil.example#//evil.example"],
    ["/bots/a%2Fb", "/bots/a%2Fb"],
  ])("keeps a path on this site: %s", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    ["protocol-relative", "//evil.example"],
    ["protocol-relative with path", "//evil.example/login"],
    ["backslash after slash", "/\\evil.example"],
    ["backslashes", "\\\\evil.example"],
    ["backslash later", "/ok\\..\\\\evil.example"],
    ["absolute https", "https://evil.example/"],
    ["absolute http", "http://127.0.0.1:3000/"],
    ["javascript scheme", "javascript:alert(1)"],
    ["data scheme", "data:text/html,hi"],
    ["relative without slash", "evil.example"],
    ["tab between slashes", "/\t/evil.example"],
    ["newline between slashes", "/\n/evil.example"],
    ["empty", ""],
    ["the sign-in page itself", "/login?next=/login"],
    ["too long", "/" + "a".repeat(3000)],
  ])("falls back to / for %s", (_label, next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  // Each of these parses to a path that starts with "//" (or an encoded slash or backslash) once
  // the URL parser has resolved its dot segments: another host to a browser.
  it.each([
    ["a dot segment", "/.//evil.com"],
    ["a dot-dot segment", "/..//evil.com"],
    ["an encoded dot", "/%2e//evil.com"],
    ["an encoded dot-dot", "/%2e%2e//evil.com"],
    ["a mixed-case encoded dot-dot", "/%2E%2e//evil.com"],
    ["a dot-dot below a segment", "/a/..//evil.com"],
    ["an encoded dot-dot below a segment", "/a/%2e%2e//evil.com"],
    ["a dot segment then a backslash", "/./\\evil.com"],
    ["an encoded slash", "/%2f/evil.com"],
    ["an encoded slash after a dot segment", "/./%2F/evil.com"],
    ["an encoded backslash", "/%5c/evil.com"],
    ["an encoded slash pair", "/%2F%2Fevil.com"],
  ])("falls back to / for a path that normalises to another host: %s", (_label, next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it("never returns a path starting with // or /\\ for any mix of dot segments and slashes", () => {
    const heads = ["", "/.", "/..", "/%2e", "/%2e%2e", "/a/..", "/a/%2e%2e", "/./."];
    const tails = ["//evil.com", "/\\evil.com", "/%2f/evil.com", "/%5c/evil.com", "//evil.com/x?y=1#z"];
    for (const head of heads) for (const tail of tails) expect(safeNextPath(head + tail)).not.toMatch(/^\/[/\\]/);
  });

  it("falls back for anything that is not a string", () => {
    for (const next of [undefined, null, 42, ["/doubtful"], { href: "/" }]) expect(safeNextPath(next)).toBe("/");
  });
});
