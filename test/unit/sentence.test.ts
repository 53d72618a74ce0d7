import { describe, expect, it } from "vitest";
import { asSentence, cutAtWord } from "@/lib/text/sentence";

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

describe("cutAtWord", () => {
  it("leaves a text within the limit as it is", () => {
    expect(cutAtWord("size drift BTCUSDT", 20, "in full on its page")).toBe("size drift BTCUSDT");
  });

  it("cuts a long text at a word, drops the punctuation before the cut, and says where the rest is", () => {
    const text = "size drift BTCUSDT: the exchange reported a position, see the runbook at https://wiki.example/desk";
    expect(cutAtWord(text, 55, "in full below")).toBe("size drift BTCUSDT: the exchange reported a position… (shortened; in full below)");
  });

  it("cuts inside a word when the text has no space in its second half", () => {
    expect(cutAtWord(`ab ${"x".repeat(50)}`, 20, "w")).toBe(`ab ${"x".repeat(17)}… (shortened; w)`);
  });
});
