import { describe, expect, it } from "vitest";
import { firstInvisible, visibleText } from "@/lib/text/visible-text";

describe("visible text", () => {
  it("shows a right-to-left override as a marker instead of reversing the text after it", () => {
    expect(visibleText("ok \u202Eahpla deraelc")).toBe("ok ⟨U+202E⟩ahpla deraelc");
  });

  it("marks every bidi embedding, override, isolate and mark", () => {
    const chars = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"];
    for (const ch of chars) expect(visibleText(`a${ch}b`)).toMatch(/^a⟨U\+[0-9A-F]{4}⟩b$/);
    expect(visibleText("\u2066x\u2069")).toBe("⟨U+2066⟩x⟨U+2069⟩");
  });

  it("marks C0 and C1 controls and DEL, and keeps tabs and line breaks", () => {
    expect(visibleText("a\u0000b\u001Bc\u007Fd\u0085e\u009Bf")).toBe("a⟨U+0000⟩b⟨U+001B⟩c⟨U+007F⟩d⟨U+0085⟩e⟨U+009B⟩f");
    expect(visibleText("line one\r\nline two\tend")).toBe("line one\r\nline two\tend");
  });

  it("leaves ordinary text in any script alone", () => {
    for (const s of ["plain", "naïve café", "مرحبا", "שלום", "日本語", "emoji 🚀"]) expect(visibleText(s)).toBe(s);
  });

  it("names the first invisible character, or null", () => {
    expect(firstInvisible("fine\nnote")).toBeNull();
    expect(firstInvisible("a\u2067b\u202Ec")).toBe("U+2067");
    expect(firstInvisible("\u0007")).toBe("U+0007");
  });
});
