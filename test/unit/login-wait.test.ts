import { describe, expect, it } from "vitest";
import { secondsLeft, waitText } from "@/lib/auth/login-state";

describe("the sign-in wait's countdown", () => {
  it("counts whole seconds down from the answer, rounding up so it never shows 0 s while still held back", () => {
    const until = 12_000;
    expect(waitText(secondsLeft(until, 0))).toBe("try again in 12 s");
    expect(secondsLeft(until, 500)).toBe(12);
    expect(secondsLeft(until, 1_000)).toBe(11);
    expect(secondsLeft(until, 11_999)).toBe(1);
  });

  it("reaches 0 once the wait is over, and stays there", () => {
    expect(secondsLeft(12_000, 12_000)).toBe(0);
    expect(secondsLeft(12_000, 60_000)).toBe(0);
  });
});
