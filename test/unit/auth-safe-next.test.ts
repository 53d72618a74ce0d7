import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/auth/safe-next";

describe("where sign-in goes next", () => {
  it.each([
    ["/", "/"],
    ["/doubtful", "/doubtful"],
    ["/bots/grid-1/symbols/BTCUSDT?range=1h#chart", "/bots/grid-1/symbols/BTCUSDT?range=1h#chart"],
    ["/incidents?from=2026-08-10T15:30:00Z", "/incidents?from=2026-08-10T15:30:00Z"],
    ["/a/../breakers", "/breakers"],
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

  it("falls back for anything that is not a string", () => {
    for (const next of [undefined, null, 42, ["/doubtful"], { href: "/" }]) expect(safeNextPath(next)).toBe("/");
  });
});
