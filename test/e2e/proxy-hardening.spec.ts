/**
 * What proxy.ts promises, against `next start`: a foreign Host is answered 421 before any page,
 * JSON route or action runs (DNS rebinding); a client's own X-Forwarded-For does not make it
 * another client (40 spoofed values still count as one and are limited); every answer the proxy
 * makes carries a CSP; and the malformed server-action posts that Next answered with a 500 are a
 * 400 with a plain sentence, a post from another site's page a 403, an action this build does not
 * have a 409, a post to a JSON route or a favicon a 405, TRACE a 405 and a WebSocket upgrade a
 * 400 (lib/http/before-next.ts), with nothing written and nothing logged.
 */
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { repoRoot } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { actionForm, actionId, rawExchange, send, type Reply } from "../helpers/e2e/raw-http";

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

test.describe("the proxy in front of every route", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;
  let port: string;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_ALLOWED_HOSTS: "console.example" } });
    port = new URL(server.url).port;
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  const auditCount = () => {
    const db = new Database(journal.file, { readonly: true });
    const n = db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
    db.close();
    return n;
  };
  const expectProxyAnswer = (r: Reply, status: number, message: RegExp) => {
    expect(r.status, r.body.slice(0, 300)).toBe(status);
    expect(r.headers["content-security-policy"]).toBe(API_CSP);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.body).toMatch(message);
    expect(r.body).not.toMatch(/\n\s*at |\/work\/|node_modules|digest/);
  };

  test("a foreign Host gets 421 on a page, a JSON route and an action post, before any of them runs", async () => {
    const audits = auditCount();
    const evil = `evil.example:${port}`;
    const form = actionForm({ clientOrderId: "be1-x", version: "1", status: "filled", note: "rebinding test" });
    const misdirected = new RegExp(
      `does not answer to the host name in this address.*adds it to DRIFTWATCH_ALLOWED_HOSTS and restarts it; until then open it as http://127\\.0\\.0\\.1:${port}`,
    );
    expectProxyAnswer(await send(server.url, { path: "/", headers: { host: evil } }), 421, misdirected);
    expectProxyAnswer(await send(server.url, { path: "/audit", headers: { host: evil } }), 421, misdirected);
    // Paths that only start like the static files the proxy leaves alone are pages (404s) like any other.
    for (const path of ["/faviconXsvg", "/favicon.svgx", "/_next/imagex", "/_next/staticx", "/favicon.svg", "/_next/image?url=%2Ffavicon.svg&w=64&q=75"])
      expectProxyAnswer(await send(server.url, { path, headers: { host: evil } }), 421, misdirected);
    const api = await send(server.url, { path: "/api/overview", headers: { host: evil } });
    expectProxyAnswer(api, 421, misdirected);
    expect(JSON.parse(api.body)).toMatchObject({ ok: false, error: { code: "misdirected" } });
    const action = await send(server.url, {
      path: "/doubtful",
      headers: { host: evil, origin: `http://${evil}`, "next-action": actionId(repoRoot, "resolveManuallyAction"), "content-type": form.contentType },
      body: form.body,
    });
    expectProxyAnswer(action, 421, misdirected);
    expect(action.body).not.toContain("evil.example");
    expect(auditCount()).toBe(audits);
    // Whoever runs the console sees what was asked for in its log.
    expect(server.output()).toContain(`driftwatch: answered 421 to Host "${evil}"`);
    // The allowed names: the configured one on any port, and loopback.
    for (const host of [`console.example:${port}`, "console.example", `localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await send(server.url, { path: "/api/overview", headers: { host } })).status, host).toBe(200);
    }
  });

  test("a console bound to another address answers to that address with no setting", async () => {
    // 127.0.0.2 is loopback on Linux but not one of the names always allowed: only the bind allows it.
    const bound = await startConsole({ journal: journal.file, host: "127.0.0.2" });
    try {
      const p = new URL(bound.url).port;
      expect((await send(bound.url, { path: "/api/overview", headers: { host: `127.0.0.2:${p}` } })).status).toBe(200);
      expectProxyAnswer(
        await send(bound.url, { path: "/api/overview", headers: { host: `127.0.0.2:${Number(p) + 1}` } }),
        421,
        new RegExp(`does not answer to the host name.*open it as http://127\\.0\\.0\\.2:${p}`),
      );
      expectProxyAnswer(await send(bound.url, { path: "/api/overview", headers: { host: `evil.example:${p}` } }), 421, /does not answer to the host name/);
    } finally {
      await bound.stop();
    }
  });

  test("the proxy's own 400, 411 and 413 carry a CSP", async () => {
    expectProxyAnswer(await send(server.url, { path: "/bots/%A4" }), 400, /not UTF-8/);
    expectProxyAnswer(await send(server.url, { path: "/api/bots/%A4/clear" }), 400, /not UTF-8/);
    const big = Buffer.alloc(70 * 1024, "x");
    expectProxyAnswer(
      await send(server.url, { path: "/doubtful", headers: { "next-action": "x", "content-type": "multipart/form-data; boundary=x" }, body: big }),
      413,
      /larger than the console accepts/,
    );
    expectProxyAnswer(
      await send(server.url, { path: "/doubtful", method: "POST", headers: { "transfer-encoding": "chunked" }, body: Buffer.from("a=1") }),
      411,
      /must declare its Content-Length/,
    );
  });

  test("malformed server-action posts are a 400 with a plain sentence, never a 500, and change nothing", async () => {
    const audits = auditCount();
    const id = actionId(repoRoot, "resolveManuallyAction");
    const login = actionId(repoRoot, "loginAction");
    const signOut = actionId(repoRoot, "logoutAction");
    const good = actionForm({ clientOrderId: "be1-x", version: "1", status: "filled", note: "malformed body test" });
    const B = "----driftwatchE2E";
    const part = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = `multipart/form-data; boundary=${B}`;
    const variants: { what: string; type?: string; body: string | Buffer; action?: string | null; path?: string; message: RegExp }[] = [
      { what: "garbage multipart body", type: multipart, body: "garbage\u0000 not multipart", message: /could not be read/ },
      { what: "truncated multipart body", type: multipart, body: good.body.subarray(0, 60), message: /could not be read/ },
      { what: "multipart without its closing boundary", type: multipart, body: part("0", '[null,"$K1"]'), message: /could not be read/ },
      { what: "a boundary the body does not use", type: "multipart/form-data; boundary=other", body: good.body, message: /could not be read/ },
      { what: "multipart without a boundary", type: "multipart/form-data", body: good.body, message: /multipart\/form-data with a boundary/ },
      { what: "text/plain that is not JSON", type: "text/plain;charset=UTF-8", body: "garbage", message: /could not be read/ },
      { what: "text/plain referring to parts that are not there", type: "text/plain;charset=UTF-8", body: '["$@1"]', message: /could not be read/ },
      {
        what: "sign-out, text/plain that is not JSON",
        type: "text/plain;charset=UTF-8",
        body: "{{{",
        action: signOut,
        path: "/",
        message: /could not be read/,
      },
      { what: "JSON", type: "application/json", body: '{"a":1}', message: /multipart\/form-data with a boundary/ },
      { what: "no content type", body: "hello", message: /multipart\/form-data with a boundary/ },
      { what: "a root field that is not JSON", type: multipart, body: `${part("0", "not json")}--${B}--\r\n`, message: /could not be read/ },
      {
        what: "a root field referring to parts that are not there",
        type: multipart,
        body: `${part("0", '["$K9","$Q7","$@3"]')}--${B}--\r\n`,
        message: /could not be read/,
      },
      { what: "no root field", type: multipart, body: `${part("1_note", "x")}--${B}--\r\n`, message: /could not be read/ },
      { what: "a form without JavaScript, garbage body", type: multipart, body: "garbage", action: null, message: /could not be read/ },
      { what: "sign-in, truncated body", type: multipart, body: good.body.subarray(0, 60), action: login, path: "/login", message: /could not be read/ },
    ];
    for (const v of variants) {
      const headers: Record<string, string> = { origin: server.url };
      if (v.type) headers["content-type"] = v.type;
      if (v.action !== null) headers["next-action"] = v.action ?? id;
      const r = await send(server.url, { path: v.path ?? "/doubtful", method: "POST", headers, body: v.body });
      expectProxyAnswer(r, 400, v.message);
      expect(r.body, v.what).toMatch(/Nothing was changed/);
    }
    // Arguments that decode, but not to a form: the action refuses them itself (no 500).
    const notAForm = await send(server.url, {
      path: "/doubtful",
      headers: { origin: server.url, "next-action": id, "content-type": multipart },
      body: `${part("0", '["$K1"]')}--${B}--\r\n`,
    });
    expect(notAForm.status).toBe(200);
    expect(notAForm.body).toContain("did not receive a form");
    // An action id this build does not have (a page from before an update, or made up): a 409 that
    // says to reload, before Next logs a stack for it.
    for (const [unknown, type, body] of [
      [`7f${"0".repeat(40)}`, good.contentType, good.body],
      [`${id.slice(0, -2)}ff`, good.contentType, good.body],
      ["xyz", "text/plain;charset=UTF-8", "[]"],
      ["7f00", "text/plain;charset=UTF-8", "[]"],
    ] as const) {
      const r = await send(server.url, { path: "/doubtful", headers: { origin: server.url, "next-action": unknown, "content-type": type }, body });
      expectProxyAnswer(r, 409, /^this page is from an earlier version of the console.*reload the page and do it again\. Nothing was changed\.\n$/);
    }
    expect(auditCount()).toBe(audits);
    expect(server.output()).not.toMatch(/Unexpected end of form|Boundary not found|Invalid forward reference|is not valid JSON|reading 'entries'/);
    expect(server.output()).not.toMatch(/Failed to find Server Action|did not match the expected format/);
  });

  test("a post from another site's page is a 403 that says why, not Next's 500, and changes nothing", async () => {
    const audits = auditCount();
    const form = actionForm({ clientOrderId: "be1-x", version: "1", status: "filled", note: "cross-site test" });
    const resolve = actionId(repoRoot, "resolveManuallyAction");
    const login = actionId(repoRoot, "loginAction");
    const refused = /sent from a page that is not this console's.*Nothing was changed.*X-Forwarded-Host/;
    const posts = [
      { path: "/doubtful", origin: "http://evil.example", action: resolve },
      { path: "/doubtful", origin: `http://127.0.0.1:${Number(port) + 1}`, action: resolve },
      { path: "/doubtful", origin: "null", action: resolve },
      { path: "/doubtful", origin: "http://[not a url", action: resolve },
      { path: "/login", origin: "https://evil.example", action: login },
      // A form posted without JavaScript carries its action in the body, not in a header.
      { path: "/doubtful", origin: "http://evil.example", action: null },
    ];
    for (const p of posts) {
      const headers: Record<string, string> = { origin: p.origin, "content-type": form.contentType };
      if (p.action) headers["next-action"] = p.action;
      const r = await send(server.url, { path: p.path, method: "POST", headers, body: form.body });
      expectProxyAnswer(r, 403, refused);
      expect(r.body, p.origin).not.toContain(p.origin);
    }
    expect(auditCount()).toBe(audits);
    expect(server.output()).toContain('driftwatch: answered 403 to a post to /doubtful from Origin "http://evil.example"');
    expect(server.output()).not.toContain("Invalid Server Actions request");
    // The console's own origin, and a proxy's X-Forwarded-Host that the Origin names, still reach the action.
    const sameSite: Record<string, string>[] = [{ origin: server.url }, { origin: "https://console.example", "x-forwarded-host": "console.example" }];
    for (const headers of sameSite) {
      const r = await send(server.url, {
        path: "/doubtful",
        headers: { ...headers, "next-action": resolve, "content-type": form.contentType },
        body: form.body,
      });
      expect(r.status, JSON.stringify(headers)).toBe(200);
      expect(r.body).toMatch(/Sign in to act/);
    }
  });

  test("a JSON route or a favicon takes no post (405), Next's image optimizer is not served (404), and neither writes to the log", async () => {
    const audits = auditCount();
    const form = actionForm({ clientOrderId: "be1-x", version: "1", status: "filled", note: "post to a read-only path" });
    const resolve = actionId(repoRoot, "resolveManuallyAction");
    const before = server.output().length;
    for (const path of ["/api/overview", "/api/nope", "/api/bots/beta", "/favicon.svg", "/favicon-halted.svg"]) {
      for (const origin of [server.url, "http://evil.example"]) {
        for (const action of [resolve, `7f${"0".repeat(40)}`, null]) {
          const headers: Record<string, string> = { origin, "content-type": form.contentType };
          if (action) headers["next-action"] = action;
          const r = await send(server.url, { path, method: "POST", headers, body: form.body });
          expectProxyAnswer(r, 405, /can only be read \(GET\), never POST\. Nothing was changed/);
          expect(r.headers.allow).toBe("GET, HEAD");
          if (path.startsWith("/api/")) expect(JSON.parse(r.body).error.code).toBe("method_not_allowed");
        }
      }
    }
    const put = await send(server.url, { path: "/favicon.svg", method: "PUT", headers: { "content-type": "image/svg+xml" }, body: "<svg/>" });
    expectProxyAnswer(put, 405, /never PUT/);
    // Reading them still works.
    const icon = await send(server.url, { path: "/favicon.svg" });
    expect(icon.status).toBe(200);
    expect(icon.body).toContain("<svg");
    expect((await send(server.url, { path: "/api/overview" })).status).toBe(200);

    for (const url of ["/AAAA", "/favicon.svg", "http://evil.example/x.png"]) {
      expectProxyAnswer(await send(server.url, { path: `/_next/image?url=${encodeURIComponent(url)}&w=64&q=75` }), 404, /serves no images/);
    }
    expect(auditCount()).toBe(audits);
    const logged = server.output().slice(before);
    expect(logged).not.toMatch(
      /internal image response failed|Failed to find Server Action|did not match the expected format|Invalid Server Actions request|ECONNRESET|\n\s+at /,
    );
  });

  test("TRACE is a 405 and a WebSocket upgrade a 400 that closes the socket, whatever the Host, and neither writes to the log", async () => {
    const before = server.output().length;
    for (const host of [new URL(server.url).host, "evil.example"]) {
      for (const path of ["/", "/api/overview", "/bots/beta"]) {
        const r = await send(server.url, { path, method: "TRACE", headers: { host } });
        expect(r.status).toBe(405);
        expect(r.headers.allow).toBe("GET, HEAD, POST");
        expect(r.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
        expect(r.headers["x-content-type-options"]).toBe("nosniff");
        expect(r.body).toBe("This console does not answer TRACE requests: only GET, HEAD and POST. Nothing was changed.\n");
      }
      // Before, Next took the upgrade through the proxy and never answered: the socket stayed open.
      const answer = await rawExchange(
        server.url,
        `GET /api/live HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
      expect(answer.closed).toBe(true);
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nThis console serves no WebSocket/);
    }
    // The pages still answer, and the log holds neither a stack nor a 421 line for them.
    expect((await send(server.url, { path: "/api/overview" })).status).toBe(200);
    const logged = server.output().slice(before);
    expect(logged).not.toMatch(/TRACE|unsupported|answered 421|\n\s+at /);
  });

  test("a request for a whole URL (the form sent to a proxy) is a 400 that closes the socket, never a redirect to that URL", async () => {
    const host = new URL(server.url).host;
    for (const target of ["http://evil.example/x/", "http://evil.example//x", `http://${host}/breakers/`, "*"]) {
      // Next answered 308 with Location: http://evil.example/x (an earlier session's note).
      const answer = await rawExchange(server.url, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect(answer.closed).toBe(true);
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer.text).not.toMatch(/\r\nlocation:/i);
      expect(answer.text).toContain("not for a whole URL: it is not a proxy");
    }
    expect((await send(server.url, { path: "/breakers/" })).status).toBe(308);
  });

  test("a client that leaves before sending its body costs at most ten log lines a minute, whatever the Host, and changes nothing", async () => {
    const audits = auditCount();
    const before = server.output().length;
    const own = new URL(server.url).host;
    for (let i = 0; i < 14; i++) {
      const host = i % 2 === 0 ? own : "evil.example";
      // A body announced as 5,000 bytes, three sent, then the socket closed.
      const answer = await rawExchange(
        server.url,
        `POST /doubtful HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: 5000\r\n\r\nabc`,
        300,
      );
      expect(answer.closed).toBe(false);
    }
    await expect.poll(() => server.output().slice(before).split("client closed its connection").length - 1).toBe(10);
    const logged = server.output().slice(before);
    // Before: "Error: aborted" and its stack, four lines for each of the 14.
    expect(logged).not.toMatch(/Error: aborted|ECONNRESET'|\n\s+at /);
    expect(auditCount()).toBe(audits);
    expect((await send(server.url, { path: "/api/overview" })).status).toBe(200);
  });

  test("what still reached Next's decoder and logged a stack is refused first, and the sign-in without its form says so", async () => {
    const before = server.output().length;
    const login = actionId(repoRoot, "loginAction");
    const B = "----driftwatchE2E";
    const part = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = `multipart/form-data; boundary=${B}`;
    const posts: { what: string; headers: Record<string, string>; body: string; status: number; message: RegExp }[] = [
      {
        what: "a form without JavaScript naming a made-up action",
        headers: { "content-type": multipart },
        body: `${part(`$ACTION_ID_7f${"ab".repeat(20)}`, "")}--${B}--\r\n`,
        status: 409,
        message: /earlier version of the console/,
      },
      {
        what: "a form without JavaScript naming one through a descriptor",
        headers: { "content-type": multipart },
        body: `${part("$ACTION_REF_1", "")}${part("$ACTION_1:0", `{"id":"7f${"ab".repeat(20)}","bound":"$@1"}`)}--${B}--\r\n`,
        status: 409,
        message: /earlier version of the console/,
      },
      {
        what: "a multipart post naming no action",
        headers: { "content-type": multipart },
        body: `${part("x", "1")}--${B}--\r\n`,
        status: 400,
        message: /could not be read/,
      },
      {
        what: "a root that is not an array",
        headers: { "content-type": "text/plain;charset=UTF-8", "next-action": login },
        body: "null",
        status: 400,
        message: /could not be read/,
      },
      {
        what: "two roots",
        headers: { "content-type": multipart, "next-action": login },
        body: `${part("0", "[]")}${part("0", "[]")}--${B}--\r\n`,
        status: 400,
        message: /could not be read/,
      },
      {
        what: "a capitalised multipart type",
        headers: { "content-type": `MULTIPART/FORM-DATA; BOUNDARY=${B}`, "next-action": login },
        body: `${part("0", "[]")}--${B}--\r\n`,
        status: 400,
        message: /multipart\/form-data with a boundary/,
      },
    ];
    for (const p of posts) {
      const r = await send(server.url, { path: "/", method: "POST", headers: { origin: server.url, ...p.headers }, body: p.body });
      expect(r.status, p.what).toBe(p.status);
      expect(r.body, p.what).toMatch(p.message);
    }
    expect((await send(server.url, { path: "/%66avicon.svg", method: "PUT", headers: { "content-type": "image/svg+xml" }, body: "<svg/>" })).status).toBe(405);
    // The sign-in given no form: its own sentence, not a TypeError.
    const empty = await send(server.url, {
      path: "/login",
      headers: { origin: server.url, "next-action": login, "content-type": "text/plain;charset=UTF-8" },
      body: "[]",
    });
    expect(empty.status).toBe(200);
    expect(empty.body).toContain("The sign-in did not receive a form");
    expect(server.output().slice(before)).not.toMatch(/Failed to find Server Action|Invalid Server Actions request|TypeError|SyntaxError|\n\s+at /);
  });

  // Last: it spends the anonymous allowance of 127.0.0.1 for a minute.
  test("40 spoofed X-Forwarded-For values still count as one client, and are limited", async () => {
    const form = actionForm({ clientOrderId: "be1-x", version: "1", status: "filled", note: "spoofed address test" });
    const id = actionId(repoRoot, "resolveManuallyAction");
    const counts = { turnedAway: 0, limited: 0, other: 0 };
    for (let i = 0; i < 100; i++) {
      const r = await send(server.url, {
        path: "/doubtful",
        headers: { "next-action": id, "content-type": form.contentType, origin: server.url, "x-forwarded-for": `203.0.113.${i % 40}` },
        body: form.body,
      });
      expect(r.status).toBe(200);
      if (/Too many actions from this address/.test(r.body)) counts.limited += 1;
      else if (/Sign in to act/.test(r.body)) counts.turnedAway += 1;
      else counts.other += 1;
    }
    // 60 a minute per client (one of them spent by the test before): had each spoofed value been a
    // client of its own, with at most 3 posts each, none would have been limited.
    expect(counts.other).toBe(0);
    expect(counts.turnedAway).toBeLessThanOrEqual(60);
    expect(counts.limited).toBeGreaterThanOrEqual(40);
    expect(server.output()).toContain("anonymous from 127.0.0.1 posted resolve_order_manual");
    expect(server.output()).not.toContain("203.0.113.");
  });
});
