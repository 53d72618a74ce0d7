import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ACTION_BODY_LIMIT_BYTES,
  rejectActionForm,
  rejectActionHeaders,
  rejectActionText,
  rejectCrossSitePost,
  rejectRequest,
  rejectUnknownAction,
  formActionIds,
} from "@/lib/http/request-limits";
import { BOT_ID_MAX, SYMBOL_MAX } from "@/lib/journal/ids";
import { parseBotFilter, parsePathId } from "@/lib/url-state/path-ids";

describe("ids from a URL", () => {
  it("accepts any printable id up to the actions' bounds, as written", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).filter((s) => s.trim() !== "" && !/[\u0000-\u001f\u007f]/.test(s)),
        (s) => {
          expect(parsePathId("bot id", s)).toEqual({ ok: true, value: s });
        },
      ),
    );
    expect(parsePathId("bot id", "'; DROP TABLE orders; --")).toEqual({ ok: true, value: "'; DROP TABLE orders; --" });
    expect(parsePathId("symbol", "x".repeat(SYMBOL_MAX)).ok).toBe(true);
  });

  it("refuses a missing, over-long or control-character id with a sentence naming it", () => {
    expect(parsePathId("bot id", "")).toEqual({ ok: false, message: "the bot id is missing" });
    expect(parsePathId("symbol", " ")).toMatchObject({ ok: false });
    expect(parsePathId("bot id", "b".repeat(BOT_ID_MAX + 1))).toEqual({
      ok: false,
      message: `the bot id is ${BOT_ID_MAX + 1} characters long; no bot id is longer than ${BOT_ID_MAX}`,
    });
    expect(parsePathId("symbol", "AAPL\u0000")).toMatchObject({ ok: false, message: expect.stringMatching(/control character/) });
    expect(parsePathId("symbol", "A\r\nB").ok).toBe(false);
  });

  it("reads ?bot= as every bot when absent or empty, and refuses it given twice", () => {
    expect(parseBotFilter([])).toEqual({ ok: true, value: null });
    expect(parseBotFilter([""])).toEqual({ ok: true, value: null });
    expect(parseBotFilter(["alpha"])).toEqual({ ok: true, value: "alpha" });
    expect(parseBotFilter(["alpha", "beta"])).toEqual({ ok: false, message: "give bot once" });
  });
});

describe("requests refused before Next's router", () => {
  const req = (over: Partial<{ method: string; pathname: string; headers: Record<string, string> }>) => ({
    method: over.method ?? "GET",
    pathname: over.pathname ?? "/",
    headers: new Headers(over.headers ?? {}),
  });

  it("refuses a path whose %-escapes are not UTF-8 with a 400, and lets every other path through", () => {
    for (const p of ["/bots/%A4", "/api/bots/%E0%A4%A/clear", "/bots/%", "/x/%zz"]) expect(rejectRequest(req({ pathname: p }))?.status).toBe(400);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 4 }), (segs) => {
        expect(rejectRequest(req({ pathname: `/${segs.map(encodeURIComponent).join("/")}` }))).toBeNull();
      }),
    );
  });

  it("refuses a POST declaring more than the limit (413) or no length at all (411), with or without Next-Action", () => {
    const post = (headers: Record<string, string>) => rejectRequest(req({ method: "POST", pathname: "/doubtful", headers }));
    for (const action of [{ "next-action": "abc" }, {}] as Record<string, string>[]) {
      expect(post({ ...action, "content-length": String(ACTION_BODY_LIMIT_BYTES) })).toBeNull();
      expect(post({ ...action, "content-length": String(ACTION_BODY_LIMIT_BYTES + 1) })?.status).toBe(413);
      expect(post({ ...action, "content-length": "lots" })?.status).toBe(413);
      expect(post(action)?.status).toBe(411);
    }
    expect(rejectRequest(req({ method: "GET", pathname: "/doubtful" }))).toBeNull();
  });

  it("refuses anything but a read of a JSON route or a public file with a 405 naming GET, before Next's action handling", () => {
    for (const pathname of ["/api/overview", "/api/nope", "/favicon.svg", "/favicon-halted.svg", "/favicon-unknown.svg"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const r = rejectRequest(req({ method, pathname, headers: { "content-length": "2", "next-action": "abc" } }));
        expect(r, `${method} ${pathname}`).toMatchObject({ status: 405, allow: "GET, HEAD" });
        expect(r!.message).toContain(`never ${method}. Nothing was changed`);
      }
      for (const method of ["GET", "HEAD"]) expect(rejectRequest(req({ method, pathname }))).toBeNull();
    }
    // By the name Next's file server reads: a %-escaped favicon is the favicon.
    for (const pathname of ["/%66avicon.svg", "/favicon%2Esvg"])
      expect(rejectRequest(req({ method: "PUT", pathname, headers: { "content-length": "2" } }))?.status, pathname).toBe(405);
    // A page takes its own actions' posts; a name that only starts like a favicon is a page (a 404).
    expect(rejectRequest(req({ method: "POST", pathname: "/doubtful", headers: { "content-length": "2" } }))).toBeNull();
    expect(rejectRequest(req({ method: "POST", pathname: "/favicon.svgx", headers: { "content-length": "2" } }))).toBeNull();
  });

  it("answers Next's image optimizer with a 404: the console shows no images", () => {
    expect(rejectRequest(req({ pathname: "/_next/image" }))).toMatchObject({ status: 404, message: "this console serves no images" });
    expect(rejectRequest(req({ pathname: "/_next/imagex" }))).toBeNull();
  });
});

describe("server-action posts naming an action this build does not have", () => {
  const known = new Set(["60ef47c2e44e4301e55c5f3e683d4830ae4eacf747"]);

  it("refuses a made-up or an earlier build's id with a 409 telling the person to reload", () => {
    for (const id of ["60ef47c2e44e4301e55c5f3e683d4830ae4eacf7ff", "7f00", "", "x".repeat(5000)]) {
      const r = rejectUnknownAction(id, known);
      expect(r?.status, id.slice(0, 50)).toBe(409);
      expect(r!.message).toMatch(/^this page is from an earlier version of the console.*reload the page and do it again\. Nothing was changed$/);
      expect(r!.message).not.toContain(id || "\u0000");
    }
  });

  it("lets a known id through, a post without one, and everything when the build's ids cannot be read", () => {
    expect(rejectUnknownAction("60ef47c2e44e4301e55c5f3e683d4830ae4eacf747", known)).toBeNull();
    expect(rejectUnknownAction(null, known)).toBeNull();
    expect(rejectUnknownAction("7f00", null)).toBeNull();
  });
});

describe("page posts from another site's page", () => {
  const post = (h: Record<string, string>) => rejectCrossSitePost(new Headers(h));
  it("passes the console's own origin, a proxy's forwarded host, and a post with no Origin at all", () => {
    expect(post({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" })).toBeNull();
    expect(post({ host: "127.0.0.1:3000", "x-forwarded-host": "console.example, 10.0.0.1", origin: "https://console.example" })).toBeNull();
    expect(post({ host: "127.0.0.1:3000" })).toBeNull();
  });
  it("refuses another host or port, an opaque origin, an unreadable one, and a post with no host to compare", () => {
    const refused: Record<string, string>[] = [
      { host: "127.0.0.1:3000", origin: "http://evil.example" },
      { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3001" },
      { host: "127.0.0.1:3000", origin: "null" },
      { host: "127.0.0.1:3000", origin: "http://[" },
      { host: "127.0.0.1:3000", "x-forwarded-host": "console.example", origin: "http://127.0.0.1:3000" },
      { origin: "http://127.0.0.1:3000" },
    ];
    for (const h of refused) expect(post(h), JSON.stringify(h)).toMatchObject({ status: 403, message: expect.stringMatching(/Nothing was changed/) });
  });
});

describe("server-action posts Next would answer with a 500", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  const form = (fields: Record<string, string>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) f.set(k, v);
    return f;
  };

  it("lets multipart/form-data with a boundary through, with or without Next-Action", () => {
    expect(rejectActionHeaders(headers({ "content-type": "multipart/form-data; boundary=----WebKitFormBoundaryabc", "next-action": "60ab" }))).toBeNull();
    expect(rejectActionHeaders(headers({ "content-type": 'multipart/form-data; boundary="x y"' }))).toBeNull();
  });

  it("refuses any other content type, a multipart without a boundary, and none at all, with a 400 saying how forms are sent", () => {
    for (const type of ["application/json", "multipart/form-data", "multipart/form-data; charset=utf-8", "multipart/mixed; boundary=x", ""]) {
      const h: Record<string, string> = { "next-action": "60ab" };
      if (type) h["content-type"] = type;
      expect(rejectActionHeaders(headers(h)), type).toMatchObject({
        status: 400,
        message: expect.stringMatching(/multipart\/form-data with a boundary.*Nothing was changed/),
      });
    }
    // text/plain is how an action that reads no argument (sign-out) is posted; its body is checked.
    expect(rejectActionHeaders(headers({ "content-type": "text/plain;charset=UTF-8", "next-action": "00ab" }))).toBeNull();
    expect(rejectActionHeaders(headers({ "content-type": "text/plain;charset=UTF-8" }))?.status).toBe(400);
    // A plain urlencoded form to a page without Next-Action: Next renders the page, no 500 to prevent.
    expect(rejectActionHeaders(headers({ "content-type": "application/x-www-form-urlencoded" }))).toBeNull();
  });

  it("refuses a body that did not parse, and a root field that is missing, not JSON or refers to parts of the body", () => {
    expect(rejectActionForm(null, true)?.status).toBe(400);
    expect(rejectActionForm(null, false)?.status).toBe(400);
    expect(rejectActionForm(form({ "1_note": "x" }), true)?.status).toBe(400);
    expect(rejectActionForm(form({ "0": "not json" }), true)?.status).toBe(400);
    for (const ref of ["$@3", "$Q7", "$W1", "$B2", "$5", "$F1", "$T", "$h1", "$i1"])
      expect(rejectActionForm(form({ "0": JSON.stringify([ref, "$K1"]) }), true), ref).toMatchObject({ status: 400 });
    expect(rejectActionForm(form({ "0": `${"[".repeat(40)}${"]".repeat(40)}` }), true)?.status).toBe(400);
  });

  it("reads a text/plain action body as React's JSON of the arguments: refused when not JSON or when it refers to parts", () => {
    expect(rejectActionText("[]")).toBeNull();
    expect(rejectActionText('["$undefined"]')).toBeNull();
    for (const bad of ["garbage", "{{{", "", '["$@1"]', '["$K1"]'.replace("K", "Q")]) expect(rejectActionText(bad), bad).toMatchObject({ status: 400 });
  });

  it("lets through what the console's forms send: a FormData and inline values, a typed $ escaped", () => {
    expect(rejectActionForm(form({ "0": '["$K1"]' }), true)).toBeNull();
    expect(rejectActionForm(form({ "0": '[null,"$K1"]' }), true)).toBeNull();
    expect(rejectActionForm(form({ "0": '["$undefined","$K1"]' }), true)).toBeNull();
    expect(
      rejectActionForm(
        form({ "0": JSON.stringify([{ ok: false, code: "invalid", message: "$$5 off", at: "$D2026-08-10T12:00:00.000Z", n: "$n12" }, "$K1"]) }),
        true,
      ),
    ).toBeNull();
    // Without Next-Action (a form posted without JavaScript) Next reads its own $ACTION_ fields.
    expect(rejectActionForm(form({ $ACTION_ID_60ab: "" }), false)).toBeNull();
    expect(rejectActionForm(form({ $ACTION_REF_1: "", "$ACTION_1:0": '{"id":"60ab","bound":"$@1"}', "1_note": "x" }), false)).toBeNull();
  });

  it("refuses what Next threw on: a root that is not the arguments' array, two roots, a number past React's 300 digits, a capitalised multipart", () => {
    for (const root of ["null", "1", '"x"', "true", '{"a":1}']) expect(rejectActionText(root), root).toMatchObject({ status: 400 });
    expect(rejectActionForm(form({ "0": "null" }), true)?.status).toBe(400);
    const twice = new FormData();
    twice.append("0", "[]");
    twice.append("0", "[]");
    expect(rejectActionForm(twice, true)?.status).toBe(400);
    expect(rejectActionText(JSON.stringify([`$n${"9".repeat(300)}`]))).toBeNull();
    expect(rejectActionText(JSON.stringify([`$n${"9".repeat(301)}`]))?.status).toBe(400);
    expect(rejectActionHeaders(headers({ "content-type": "MULTIPART/FORM-DATA; BOUNDARY=----x", "next-action": "60ab" }))?.status).toBe(400);
    expect(rejectActionHeaders(headers({ "content-type": "multipart/form-data; BOUNDARY=----x", "next-action": "60ab" }))).toBeNull();
  });

  it("refuses a form posted without JavaScript that names no action, or names one React cannot read", () => {
    expect(rejectActionForm(form({ x: "1" }), false)?.status).toBe(400);
    expect(rejectActionForm(form({ $ACTION_REF_1: "" }), false)?.status).toBe(400);
    expect(rejectActionForm(form({ $ACTION_REF_1: "", "$ACTION_1:0": "not json" }), false)?.status).toBe(400);
    expect(rejectActionForm(form({ $ACTION_REF_1: "", "$ACTION_1:0": '{"bound":null}' }), false)?.status).toBe(400);
  });
});

describe("the action ids a form names", () => {
  const form = (fields: [string, string][]) => {
    const f = new FormData();
    for (const [k, v] of fields) f.append(k, v);
    return f;
  };
  const known = new Set(["60ab", "00cd"]);

  it("reads $ACTION_ID_ fields and $ACTION_REF_ descriptors, and refuses a form naming one this build lacks", () => {
    expect(formActionIds(form([["$ACTION_ID_60ab", ""]]))).toEqual(["60ab"]);
    expect(
      formActionIds(
        form([
          ["$ACTION_REF_1", ""],
          ["$ACTION_1:0", '{"id":"00cd","bound":"$@1"}'],
        ]),
      ),
    ).toEqual(["00cd"]);
    expect(formActionIds(form([["1_note", "x"]]))).toBeNull();
    expect(rejectUnknownAction(formActionIds(form([["$ACTION_ID_7fff", ""]])), known)?.status).toBe(409);
    expect(
      rejectUnknownAction(
        formActionIds(
          form([
            ["$ACTION_ID_60ab", ""],
            ["$ACTION_ID_7fff", ""],
          ]),
        ),
        known,
      )?.status,
    ).toBe(409);
    expect(
      rejectUnknownAction(
        formActionIds(
          form([
            ["$ACTION_REF_1", ""],
            ["$ACTION_1:0", '{"id":"00cd"}'],
          ]),
        ),
        known,
      ),
    ).toBeNull();
  });
});
