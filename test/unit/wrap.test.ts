import { describe, expect, it } from "vitest";
import { idBreaks, spacedJson, splitIds } from "@/lib/text/wrap";

describe("splitIds", () => {
  it("puts each id of an error in its own piece and leaves the words around it as prose", () => {
    const text = "lookup of beta-d802a55a0df8ed0d3231 failed: timeout after 10000 ms";
    expect(splitIds(text)).toEqual([
      { text: "lookup of ", id: false },
      { text: "beta-d802a55a0df8ed0d3231", id: true },
      { text: " failed: timeout after 10000 ms", id: false },
    ]);
  });

  it("treats hashes, paths and column names as ids, and long words of prose as prose", () => {
    const pieces = splitIds("head hmac-sha256:0123456789abcdef in /tmp/run/journal.db of reconciliation_positions, responsibilities unchanged");
    expect(pieces.filter((p) => p.id).map((p) => p.text)).toEqual(["hmac-sha256:0123456789abcdef", "/tmp/run/journal.db", "reconciliation_positions,"]);
  });

  it("gives the text back exactly when joined", () => {
    for (const t of ["", "plain words only", "  x-0000000000000  ", "a\nb beta-d802a55a0df8ed0d3231\n"])
      expect(
        splitIds(t)
          .map((p) => p.text)
          .join(""),
      ).toBe(t);
  });
});

describe("idBreaks", () => {
  it("cuts an id after each /, ?, &, = and _, and gives it back whole when joined", () => {
    const url = "http://127.0.0.1:40877/v5/order/realtime?category=linear&orderLinkId=alpha-d98625984061cf3ef4af";
    expect(idBreaks(url)).toEqual([
      "http:/",
      "/",
      "127.0.0.1:40877/",
      "v5/",
      "order/",
      "realtime?",
      "category=",
      "linear&",
      "orderLinkId=",
      "alpha-d98625984061cf3ef4af",
    ]);
    expect(idBreaks(url).join("")).toBe(url);
    expect(idBreaks("reconciliation_positions")).toEqual(["reconciliation_", "positions"]);
    // Nothing after a trailing separator.
    expect(idBreaks("/tmp/x/")).toEqual(["/", "tmp/", "x/"]);
    expect(idBreaks("beta-d802a55a0df8ed0d3231")).toEqual(["beta-d802a55a0df8ed0d3231"]);
  });
});

describe("spacedJson", () => {
  it("puts a space after each field's comma and colon, so a line breaks between fields and never inside a time", () => {
    expect(spacedJson('{"attempt":2,"at":"2026-12-05T03:12:41.123Z","error":"a\\nb, c:d"}')).toBe(
      '{ "attempt": 2, "at": "2026-12-05T03:12:41.123Z", "error": "a\\nb, c:d" }',
    );
    expect(spacedJson('[{"a":[1,2]}]')).toBe('[ { "a": [ 1, 2 ] } ]');
  });

  it("leaves text that is not a JSON object or array as it is", () => {
    for (const t of ["timeout after 10000 ms", '"quoted"', "42", "null", "{not json"]) expect(spacedJson(t)).toBe(t);
  });
});
