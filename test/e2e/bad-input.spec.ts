/**
 * Bad input over HTTP against the production build: fast-check draws path segments and query
 * parameters for every JSON route and the pages that read them (SQL, `../`, `%00`, malformed
 * %-escapes, very long and unicode values). Never a 500, never a stack trace or a file path in the
 * body, a 400 with a plain message for what is plainly wrong, a safe download name, and the journal
 * exactly as it was. Server-action posts over the body limit are refused before they run; a note
 * over the form's limit is refused by the action, plainly, and audited.
 *
 * Requests go over raw HTTP (node:http), not fetch, so `%2e%2e` and malformed escapes reach the
 * server as written instead of being normalised by a URL parser first.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { expect, test, type Page, type Request } from "@playwright/test";
import { createAccount } from "@/lib/auth/accounts";
import { sessionPayload, signSession, SESSION_COOKIE } from "@/lib/auth/token";
import { openAccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";
import { captureResolvePost as captureResolvePostAt } from "../helpers/e2e/capture-post";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { incidentJournal } from "../helpers/e2e/journals";

const SECRET = "bad-input-spec-session-secret-longer-than-32";
const OPERATOR = { name: "ana", password: "ana's long password here" };
const RUNS = 25;
const PAGE_RUNS = 8;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** GET a path exactly as written: no URL parser between the test and the server. */
function rawGet(base: string, pathAndQuery: string): Promise<Reply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: pathAndQuery, method: "GET", headers: { accept: "*/*" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** POST with `Transfer-Encoding: chunked`, so no Content-Length is declared. */
function rawPost(base: string, pathname: string, headers: Record<string, string>, body: Buffer): Promise<Reply> {
  const { hostname, port } = new URL(base);
  const sent = Object.fromEntries(Object.entries(headers).filter(([k]) => !["content-length", "transfer-encoding", "connection"].includes(k.toLowerCase())));
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: pathname, method: "POST", headers: { ...sent, "transfer-encoding": "chunked" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.write(body.subarray(0, 10));
    req.end(body.subarray(10));
  });
}

/** What must never reach a client: a 5xx, a stack frame, a path on the server's disk. */
function expectNoLeak(r: Reply, what: string) {
  expect(r.status, `${what} answered ${r.status}: ${r.body.slice(0, 300)}`).toBeLessThan(500);
  expect(r.body, what).not.toMatch(/\n\s*at [\w.<[]/);
  expect(r.body, what).not.toMatch(/\/work\/|node_modules|\.tsx?:\d|\.m?js:\d+:\d+|URIError|SqliteError|SQLITE_/);
}

/** A 400 in the routes' envelope with a sentence a person can act on. */
function expectBadRequest(r: Reply, what: string) {
  expect(r.status, `${what} answered ${r.status}: ${r.body.slice(0, 300)}`).toBe(400);
  const json = JSON.parse(r.body) as { ok: boolean; error: { code: string; message: string } };
  expect(json.ok).toBe(false);
  expect(json.error.code).toBe("invalid");
  expect(json.error.message.length).toBeGreaterThan(8);
  expect(json.error.message.length).toBeLessThan(600);
}

function expectOkJson(r: Reply, what: string) {
  expect(r.status, `${what} answered ${r.status}: ${r.body.slice(0, 300)}`).toBe(200);
  expect(JSON.parse(r.body)).toMatchObject({ ok: true });
}

/** Every table's rows, hashed: what "nothing was written" compares. */
function fingerprint(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
    // Rows sorted as data: the rollup tables are WITHOUT ROWID, so there is no rowid to order by.
    const rows = (t: string) => (db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[]).map((r) => JSON.stringify(r)).sort();
    return Object.fromEntries(
      tables.map((t) => [
        t,
        crypto
          .createHash("sha256")
          .update(JSON.stringify(rows(t)))
          .digest("hex"),
      ]),
    );
  } finally {
    db.close();
  }
}

function auditCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
  } finally {
    db.close();
  }
}

// ---- what a hostile or careless URL holds ---------------------------------------------------------

const SQL = ["'; DROP TABLE orders; --", "1 OR 1=1", "x' UNION SELECT hash FROM audit_log --", "%' --", '"; DELETE FROM breakers; --'];
const enc = encodeURIComponent;
/** Printable text without control characters, non-blank: what an id could be. */
const plausible = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "" && !/[\u0000-\u001f\u007f]/.test(s));

/** A path segment as sent, and whether the route must call it a bad request. */
type Segment = { raw: string; bad: boolean | "either" };
const segment = (max: number): fc.Arbitrary<Segment> =>
  fc.oneof(
    // Well formed, if unlikely: looked up as plain values, found nowhere (or found), never a 400.
    // ("." and ".." are dot segments whatever generated them: the URL parser removes them, so they are the "either" group's.)
    fc
      .oneof(plausible, fc.constantFrom(...SQL, "../../etc/passwd", "a/b", "..\\..\\", "NUL", "\u202eevil"))
      .filter((s) => s !== "." && s !== "..")
      .map((s) => ({ raw: enc(s), bad: false })),
    // Plainly wrong: too long, control characters, blank, %-escapes that are not UTF-8.
    fc
      .oneof(
        // (Under Node's 16 KB header limit, so the route itself answers; far longer is the next test's.)
        fc.integer({ min: max + 1, max: max + 1_000 }).map((n) => enc("é".repeat(n))),
        fc.constantFrom("%00", "a%00b", "%0d%0aSet-Cookie:%20x=1", "%09", "%7F", "%20", "%A4", "%E0%A4%A", "%", "%zz", "%C0%AF", "%ED%A0%80"),
      )
      .map((raw) => ({ raw, bad: true })),
    // Dot segments: Next may normalise or redirect them; anything but a 5xx.
    fc.constantFrom("..", "%2e%2e", "%2E%2e%2F..", ".", "%2e", "..%2f..%2f..%2fetc%2fpasswd", "..%5c..%5c").map((raw) => ({ raw, bad: "either" as const })),
  );

/** A query value as sent: encoded text, raw tricks, or huge. */
const queryValue: fc.Arbitrary<string> = fc.oneof(
  plausible.map(enc),
  fc.constantFrom(
    ...SQL.map(enc),
    "%00",
    "%A4",
    "..%2f..%2fetc%2fpasswd",
    "%0d%0a",
    "NaN",
    "Infinity",
    "-1",
    "0",
    "1e400",
    "9007199254740993",
    "",
    "%E2%80%AE",
  ),
  fc.constantFrom(
    "15m",
    "1h",
    "day",
    "custom",
    "json",
    "csv",
    "xml",
    "2026-08-10T15:30:00Z",
    "2026-08-10%2015:30",
    "2026-02-31T00:00:00Z",
    "alpha",
    "beta",
    "order,breaker",
    "zzz",
  ),
  fc.integer({ min: 1, max: 3_000 }).map((n) => "x".repeat(n)),
);
/** A query string over the given names (each maybe twice), plus names no route reads. */
const queryOver = (names: string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.constantFrom("name", "__proto__", "constructor", "%00", "a%5Bb%5D")), queryValue), { maxLength: 5 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`));

test.describe("bad input over HTTP", () => {
  // One server for the file; room for a busy shared machine, where the one browser page is slow.
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof incidentJournal>>;
  let before: Record<string, string>;
  let sessionsValidFrom: string;

  test.beforeAll(async () => {
    journal = await incidentJournal({ startMsAgo: 4 * 60_000 }); // a short history: enough rows, quick to write
    const accountsDb = path.join(tempDir("e2e-bad"), "accounts.db");
    // In-process rather than through scripts/accounts.ts: the same store, without a second tsx start.
    const accounts = openAccountsDb(accountsDb, { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
    sessionsValidFrom = (await createAccount(accounts.db, { name: OPERATOR.name, role: "operator", password: OPERATOR.password })).sessionsValidFrom;
    accounts.sqlite.close();
    server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
    before = fingerprint(journal.file);
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });
  const get = (p: string) => rawGet(server.url, p);
  const unchanged = () => expect(fingerprint(journal.file)).toEqual(before);

  test("bot and symbol path segments: a 400 naming what is wrong, or an answer; never a 500", async () => {
    const routes = [
      (b: string, s: string) => `/api/bots/${b}/symbols/${s}`,
      (b: string, s: string) => `/api/bots/${b}/symbols/${s}/chart`,
      (b: string) => `/api/bots/${b}/clear`,
    ];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: routes.length - 1 }), segment(200), segment(100), async (which, bot, symbol) => {
        const p = routes[which]!(bot.raw, symbol.raw);
        const r = await get(p);
        expectNoLeak(r, p);
        const usesSymbol = which !== 2;
        const bad = [bot.bad, usesSymbol ? symbol.bad : false];
        if (bad.includes("either")) return;
        if (bad.includes(true)) expectBadRequest(r, p);
        else expectOkJson(r, p);
      }),
      { numRuns: RUNS * 2 },
    );
    unchanged();
  });

  test("query parameters of every JSON route: a 400 with a message, or data; never a 500", async () => {
    const routes: [string, string[]][] = [
      ["/api/overview", ["bot"]],
      ["/api/doubtful", ["bot"]],
      ["/api/breakers", ["bot", "before"]],
      ["/api/bots/alpha/symbols/AAPL", ["orders"]],
      ["/api/bots/beta/symbols/ETHUSDT/chart", ["range", "from", "to"]],
      ["/api/bots/alpha/clear", ["x"]],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: routes.length - 1 }).chain((i) => queryOver(routes[i]![1]).map((q) => `${routes[i]![0]}${q}`)),
        async (p) => {
          const r = await get(p);
          expectNoLeak(r, p);
          if (r.status === 400) expectBadRequest(r, p);
          else expectOkJson(r, p);
        },
      ),
      { numRuns: RUNS * 2 },
    );
    // The plainly wrong ones, each named.
    for (const p of [
      "/api/doubtful?bot=a&bot=b",
      `/api/doubtful?bot=${"b".repeat(201)}`,
      "/api/doubtful?bot=%00",
      "/api/breakers?bot=alpha&before=%27%3B%20DROP%20TABLE%20breakers%3B--",
      "/api/bots/alpha/symbols/AAPL?orders=1e400",
      "/api/bots/beta/symbols/ETHUSDT/chart?range=custom&from=..%2f..&to=2026-08-10T15:30:00Z",
      "/api/bots/beta/symbols/ETHUSDT/chart?range=%27%20OR%201%3D1",
    ]) {
      expectBadRequest(await get(p), p);
    }
    // SQL in a filter is a value like any other: it matches nothing, and drops nothing.
    const sqlBot = await get(`/api/doubtful?bot=${enc("'; DROP TABLE orders; --")}`);
    expect(JSON.parse(sqlBot.body)).toEqual({ ok: true, data: { orders: [], total: 0, notices: [] } });
    unchanged();
  });

  test("incident export: a bad window or format is a 400; a download always has a safe file name", async () => {
    await fc.assert(
      fc.asyncProperty(queryOver(["format", "from", "to", "bot", "kind", "name", "window"]), async (q) => {
        const p = `/api/incidents/export${q}`;
        const r = await get(p);
        expectNoLeak(r, p);
        if (r.status === 400) {
          expectBadRequest(r, p);
          return;
        }
        expect(r.status, p).toBe(200);
        const disposition = String(r.headers["content-disposition"]);
        expect(disposition, p).toMatch(/^attachment; filename="driftwatch-incident-[A-Za-z0-9._-]+\.(json|csv)"$/);
        expect(disposition, p).not.toMatch(/\.\.|[/\\\r\n]/);
      }),
      { numRuns: RUNS * 2 },
    );
    for (const p of [
      "/api/incidents/export?format=..%2f..%2fetc%2fpasswd",
      "/api/incidents/export?format=csv%0d%0aX-Evil:%201",
      "/api/incidents/export?from=%27%3B%20DROP%20TABLE%20audit_log%3B--",
    ]) {
      expectBadRequest(await get(p), p);
    }
    // A name asked for is not a name given: the file is named by its window, whatever the URL says.
    const named = await get(`/api/incidents/export?format=csv&name=${enc("../../etc/passwd\r\nX: y")}&from=2026-08-10T15:00:00Z&to=2026-08-10T16:00:00Z`);
    expect(named.headers["content-disposition"]).toBe('attachment; filename="driftwatch-incident-2026-08-10T15-00-00.000Z-2026-08-10T16-00-00.000Z.csv"');
    unchanged();
  });

  test("pages with bad search parameters and path segments still answer with a page", async () => {
    const pages: [string, string[]][] = [
      ["/incidents", ["from", "to", "bot", "kind"]],
      ["/audit", ["actor", "action", "before"]],
      ["/doubtful", ["bot"]],
      ["/breakers", ["bot", "before"]],
      ["/bots/beta/symbols/ETHUSDT", ["range", "from", "to"]],
      ["/login", ["next"]],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: pages.length - 1 }).chain((i) => queryOver(pages[i]![1]).map((q) => `${pages[i]![0]}${q}`)),
        async (p) => {
          const r = await get(p);
          expectNoLeak(r, p);
          expect(r.status, p).toBe(200);
          expect(r.body, p).toContain("</html>");
        },
      ),
      { numRuns: PAGE_RUNS * 2 },
    );
    await fc.assert(
      fc.asyncProperty(segment(200), segment(100), fc.boolean(), async (bot, symbol, withSymbol) => {
        const p = withSymbol ? `/bots/${bot.raw}/symbols/${symbol.raw}` : `/bots/${bot.raw}`;
        const r = await get(p);
        expectNoLeak(r, p);
      }),
      { numRuns: PAGE_RUNS * 2 },
    );
    // An address longer than Node reads (16 KB of headers) is refused by the server itself: a 431, not a 500.
    const tooLong = await get(`/bots/${"x".repeat(40_000)}`);
    expect(tooLong.status).toBe(431);
    // Ids are read as written: decoded once, whatever they hold (a `%`, a slash, a space, unicode).
    const percent = await get(`/bots/${enc("a%20b")}`);
    // No such bot: a 404 whose title names the id decoded once (the heading, rendered in the
    // browser, is checked in reader-exposure.spec.ts).
    expect(percent.status).toBe(404);
    expect(percent.body).toContain("a%20b · driftwatch");
    const slashed = await get(`/bots/beta/symbols/${enc("ÉTH/USD T")}`);
    expect(slashed.body).toContain(">ÉTH/USD T</span>");
    unchanged();
  });

  /** A session cookie for the operator, made as sign-in makes it, so the test skips the sign-in page. */
  function operatorCookie(): { name: string; value: string; url: string } {
    return { name: SESSION_COOKIE, value: signSession(sessionPayload({ name: OPERATOR.name, sessionsValidFrom, ttlMs: 3_600_000 }), SECRET), url: server.url };
  }

  /** Fills "resolve by hand" and catches the action's POST without letting it through. */
  async function captureResolvePost(page: Page, note: string): Promise<Request> {
    await page.context().addCookies([operatorCookie()]);
    return captureResolvePostAt(page, server.url, note);
  }

  test("a post over the body limit is refused before any action runs; a note over the form's limit is refused and audited", async ({ page }) => {
    const NOTE = "seen filled on the venue screen";
    const post = await captureResolvePost(page, NOTE);
    const headers = await post.allHeaders();
    const body = post.postDataBuffer()!.toString("utf8");
    expect(body).toContain(NOTE);
    const send = (opts: { note: string; headers?: Record<string, string>; path?: string }) =>
      page.request.post(opts.path ? `${server.url}${opts.path}` : post.url(), {
        headers: { ...(opts.headers ?? headers), origin: server.url },
        data: Buffer.from(body.replace(NOTE, opts.note), "utf8"),
        failOnStatusCode: false,
        timeout: 30_000,
      });
    const audits = auditCount(journal.file);
    const huge = "x".repeat(2 * 1024 * 1024);
    const expectTurnedAway = async (res: Awaited<ReturnType<typeof send>>, status: number) => {
      const text = await res.text();
      expect(res.status(), text.slice(0, 300)).toBe(status);
      expect(text).toMatch(/larger than the console accepts|must declare its Content-Length/);
      expect(text).not.toMatch(/\n\s*at |\/work\/|node_modules/);
      expect(auditCount(journal.file)).toBe(audits);
      unchanged();
    };

    // 2 MB: refused from its declared length (64 KB allowed) before Next, the action or the guard reads it.
    await expectTurnedAway(await send({ note: huge }), 413);
    // The same without the Next-Action header, as a form posted without JavaScript sends it.
    const withoutAction = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "next-action"));
    await expectTurnedAway(await send({ note: huge, headers: withoutAction }), 413);
    // Sign-in is a server action too.
    const loginId = Object.entries(
      JSON.parse(fs.readFileSync(path.join(repoRoot, ".next/server/server-reference-manifest.json"), "utf8")).node as Record<string, { exportedName?: string }>,
    ).find(([, v]) => v.exportedName === "loginAction")?.[0];
    expect(loginId).toBeTruthy();
    await expectTurnedAway(await send({ note: huge, path: "/login", headers: { ...headers, "next-action": loginId! } }), 413);
    // A post that declares no length is not read at all.
    const chunked = await rawPost(
      server.url,
      new URL(post.url()).pathname,
      { ...headers, origin: server.url, host: new URL(server.url).host },
      Buffer.from(body, "utf8"),
    );
    expect(chunked.status).toBe(411);
    expect(auditCount(journal.file)).toBe(audits);

    // 5 000 characters: under the body limit, over the note's; the action refuses it, says why, audits it.
    const long = await send({ note: "y".repeat(5_000) });
    expect(long.status()).toBe(200);
    expect(await long.text()).toContain("Keep the note under 1000 characters");
    expect(auditCount(journal.file)).toBe(audits + 1);
    const db = new Database(journal.file, { readonly: true });
    const last = db.prepare(`SELECT action, outcome, code FROM audit_log ORDER BY id DESC LIMIT 1`).get();
    db.close();
    expect(last).toEqual({ action: "resolve_order_manual", outcome: "refused", code: "invalid" });
    expect(fingerprint(journal.file)).toEqual({ ...before, audit_log: expect.any(String) });
  });
});
