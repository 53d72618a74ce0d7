import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvField, spreadsheetSafe, toCsv } from "@/lib/text/csv";
import { visibleText } from "@/lib/text/visible-text";
import { parseCsv } from "../helpers/csv";

describe("toCsv (RFC 4180)", () => {
  it("quotes only the fields that hold a comma, a quote, CR or LF, and doubles inner quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\r")).toBe('"cr\r"');
    expect(csvField(null)).toBe("");
    expect(csvField(-0.25)).toBe("-0.25");
    expect(csvField(Number.NaN)).toBe("");
  });

  it("never hands a spreadsheet a formula, and keeps numbers exact", () => {
    expect(csvField('=HYPERLINK("http://evil","click")')).toBe('"\'=HYPERLINK(""http://evil"",""click"")"');
    expect(csvField("+cmd")).toBe("'+cmd");
    expect(csvField("-2+3")).toBe("'-2+3");
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvField("\tx")).toBe("'\tx");
    expect(csvField("\rx")).toBe('"\'\rx"');
    for (const n of ["-0.5", "+3", "-1e-8", ".5", "12"]) expect(csvField(n)).toBe(n);
    expect(csvField(-3)).toBe("-3");
    expect(csvField("a=b")).toBe("a=b");
    fc.assert(
      fc.property(fc.string(), (text) => {
        const cell = parseCsv(toCsv(["x"], [[text]]))[1]?.[0];
        const dangerous = /^[=+\-@\t\r]/.test(cell!) && !/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(cell!);
        expect(dangerous).toBe(false);
        // Nothing is lost: the text is still there, behind at most one apostrophe, its invisible characters as markers.
        expect([visibleText(text), `'${visibleText(text)}`]).toContain(cell);
      }),
    );
  });

  it("writes a direction override or a control character as the marker the pages show, so a spreadsheet cannot reorder a line", () => {
    expect(csvField("alpha\u202Edeer cleared")).toBe("alpha⟨U+202E⟩deer cleared");
    expect(csvField("bell\u0007, nul\u0000")).toBe('"bell⟨U+0007⟩, nul⟨U+0000⟩"');
    // Tabs and line breaks are a note's own.
    expect(csvField("a\tb")).toBe("a\tb");
    expect(csvField("\u200F=1+1")).toBe("⟨U+200F⟩=1+1");
  });

  it("writes a header and ends every record with CRLF", () => {
    expect(toCsv(["a", "b"], [["1", '{"x":1,"y":"z"}']])).toBe('a,b\r\n1,"{""x"":1,""y"":""z""}"\r\n');
  });

  it("refuses a row whose width differs from the header's", () => {
    expect(() => toCsv(["a", "b"], [["1"]])).toThrow(RangeError);
  });

  it("round-trips any text through a strict RFC 4180 reader", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: "grapheme" }), { minLength: 3, maxLength: 3 }), { maxLength: 8 }), (rows) => {
        const header = ["h1", "h,2", 'h"3'];
        expect(parseCsv(toCsv(header, rows))).toEqual([header, ...rows.map((r) => r.map((c) => spreadsheetSafe(visibleText(c))))]);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.constantFrom("", ",", '"', "\r\n", "\n", "\r", "a", " "), { maxLength: 6 }).map((p) => p.join("")),
          { minLength: 2, maxLength: 2 },
        ),
        (row) => {
          expect(parseCsv(toCsv(["x", "y"], [row]))).toEqual([["x", "y"], row.map(spreadsheetSafe)]);
        },
      ),
    );
  });
});
