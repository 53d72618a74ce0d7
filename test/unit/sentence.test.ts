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

  it("closes the brackets the cut leaves open, after the ellipsis", () => {
    const text =
      "order a-1 unknown: send failed; then lookup failed: network error (bybit GET http://127.0.0.1:1/v5/order/realtime [fetch failed: other side closed])";
    expect(cutAtWord(text, 80, "in full on its page")).toBe(
      "order a-1 unknown: send failed; then lookup failed: network error (bybit GET…) (shortened; in full on its page)",
    );
    expect(cutAtWord(text, 125, "w")).toBe(
      "order a-1 unknown: send failed; then lookup failed: network error (bybit GET http://127.0.0.1:1/v5/order/realtime [fetch…]) (shortened; w)",
    );
    // Brackets closed before the cut are left alone.
    expect(cutAtWord("a (b) c (d) e f g h i j k l m n o p", 12, "w")).toBe("a (b) c (d)… (shortened; w)");
  });

  it("cuts inside a word when the text has no space in its second half", () => {
    expect(cutAtWord(`ab ${"x".repeat(50)}`, 20, "w")).toBe(`ab ${"x".repeat(17)}… (shortened; w)`);
  });
});
