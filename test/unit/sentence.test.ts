import { describe, expect, it } from "vitest";
import { asSentence } from "@/lib/text/sentence";

describe("a reason closed as a sentence", () => {
  it("adds a full stop to a reason without one", () => {
    expect(asSentence("unknown position ETHUSDT +3")).toBe("unknown position ETHUSDT +3.");
  });

  it("keeps a reason that already ends as a sentence as it is, without a second stop", () => {
    expect(asSentence("drill over.")).toBe("drill over.");
    expect(asSentence("why?")).toBe("why?");
    expect(asSentence("stop now!")).toBe("stop now!");
  });

  it("drops trailing blanks and line breaks before closing it", () => {
    expect(asSentence("halted for the drill \n")).toBe("halted for the drill.");
  });

  it("ends a reason in brackets after the bracket", () => {
    expect(asSentence("2 order(s) unknown (after restart)")).toBe("2 order(s) unknown (after restart).");
  });
});
