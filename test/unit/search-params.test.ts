import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseBreakersView } from "@/lib/url-state/breakers";
import { parseIncidentQuery } from "@/lib/url-state/incidents";
import { parseOverviewView } from "@/lib/url-state/overview";
import { parseBotFilter } from "@/lib/url-state/path-ids";
import { firstSearchParam, oneSearchParam } from "@/lib/url-state/search-param-fields";
import { firstValue, searchParamsRecord, singleValue } from "@/lib/url-state/search-params";
import { parseSymbolRange } from "@/lib/url-state/symbol";

const bot = z.object({ bot: oneSearchParam("bot") });
const sort = z.object({ sort: firstSearchParam });

describe("a URL's search params as one record", () => {
  it("holds a key given once as its string and a repeated key as all its values in order", () => {
    expect(searchParamsRecord(new URLSearchParams("bot=a&kind=order&kind=breaker&to="))).toEqual({ bot: "a", kind: ["order", "breaker"], to: "" });
  });

  it("takes a page's searchParams record as it is", () => {
    const record = { bot: "a", kind: ["order", "breaker"] };
    expect(searchParamsRecord(record)).toBe(record);
  });
});

describe("a search param given at most once", () => {
  it("is trimmed, and reads as absent when missing, empty or blank", () => {
    expect(bot.parse(searchParamsRecord(new URLSearchParams("bot=%20alpha%20")))).toEqual({ bot: "alpha" });
    for (const q of ["", "bot=", "bot=%20%20"]) expect(bot.parse(searchParamsRecord(new URLSearchParams(q))).bot).toBeUndefined();
  });

  it("refuses a repeated key by name instead of choosing the first value", () => {
    const result = bot.safeParse(searchParamsRecord(new URLSearchParams("bot=a&bot=b")));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual(["give bot once"]);
  });

  it("reads a one-value array (a page record) like a plain string", () => {
    expect(bot.parse({ bot: ["alpha"] })).toEqual({ bot: "alpha" });
  });

  it("read without a schema keeps the value as written, and leaves a repeat as a list to refuse", () => {
    expect(singleValue(" a ")).toBe(" a ");
    expect(singleValue([""])).toBe("");
    expect(singleValue(undefined)).toBeUndefined();
    expect(singleValue(["a", "b"])).toEqual(["a", "b"]);
  });
});

describe("the first value of a search param", () => {
  it("is what URLSearchParams.get reads, from a URLSearchParams and a page record alike", () => {
    const params = new URLSearchParams("sort=age&sort=bot");
    expect(sort.parse(searchParamsRecord(params)).sort).toBe(params.get("sort"));
    expect(sort.parse({ sort: ["age", "bot"] }).sort).toBe("age");
    expect(sort.parse({}).sort).toBeUndefined();
    expect(firstValue(searchParamsRecord(params).sort)).toBe("age");
  });
});

describe("the screens read their URLs alike", () => {
  it("every view that filters by bot refuses ?bot= given twice with the same words", () => {
    const twice = new URLSearchParams("bot=a&bot=b");
    expect(parseBreakersView(twice)).toEqual({ ok: false, message: "bot give bot once." });
    expect(parseIncidentQuery(twice)).toMatchObject({ ok: false, fieldErrors: { bot: ["give bot once"] } });
    expect(parseBotFilter(twice.getAll("bot"))).toEqual({ ok: false, message: "give bot once" });
  });

  it("the incident window refuses a bot id holding a control character, as a path's bot id is refused", () => {
    // The export puts the bot in its file name: a line break there is no bot's.
    expect(parseIncidentQuery(new URLSearchParams('bot=a";\r\nX-Evil:1'))).toMatchObject({
      ok: false,
      fieldErrors: { bot: ["contains a control character (such as %00 or a line break); no bot id does"] },
    });
    expect(parseIncidentQuery(new URLSearchParams("bot=alpha"))).toMatchObject({ ok: true, bot: "alpha" });
  });

  it("the views that never refuse read the first of a repeated value, from either form of the params", () => {
    expect(parseOverviewView(new URLSearchParams("sort=age&sort=bot")).sort).toBe("age");
    expect(parseOverviewView({ sort: ["notional", "age"], bot: "b", drift: "1" })).toEqual({ sort: "notional", bot: "b", driftOnly: true });
    expect(parseSymbolRange(new URLSearchParams("range=1h&range=day"))).toEqual({ ok: true, range: { kind: "1h" } });
    expect(parseSymbolRange({ range: ["day", "1h"] })).toEqual({ ok: true, range: { kind: "day" } });
  });
});
