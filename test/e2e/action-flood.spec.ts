/**
 * The flood of issue 18: 10,000 server-action posts, half anonymous and half from a signed-in
 * viewer, against `next start` on a live incident journal. Nothing of it may reach the bot's
 * journal: the file and its WAL keep their exact size and the audit log gains no row. The
 * per-client limit answers most of them (cheaply, before the journal is looked at), the server log
 * keeps a bounded, rate-limited trace without the posts' contents, and the operator on the same
 * address still acts: a stranger cannot spend the operator's allowance.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { createAccount } from "@/lib/auth/accounts";
import { sessionPayload, signSession, SESSION_COOKIE } from "@/lib/auth/token";
import { openAccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";
import { captureResolvePost } from "../helpers/e2e/capture-post";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { floodAgent, send, type Reply } from "../helpers/e2e/raw-http";

const SECRET = "flood-spec-session-secret-longer-than-32-chars";
const OPERATOR = { name: "ana", password: "ana's long password here", role: "operator" as const };
const VIEWER = { name: "vic", password: "vic's long password here", role: "viewer" as const };
const NOTE = "seen filled on the venue screen, flood test";
const POSTS = 10_000;
const CONCURRENCY = 32;

const fileSize = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);

test.describe("a flood of action posts from strangers and viewers", () => {
  test.describe.configure({ mode: "serial", timeout: 300_000 });
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;
  const changedAt: Record<string, string> = {};

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-flood"), "accounts.db");
    const accounts = openAccountsDb(accountsDb, { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
    for (const a of [OPERATOR, VIEWER]) changedAt[a.name] = (await createAccount(accounts.db, a)).sessionsValidFrom;
    accounts.sqlite.close();
    server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  /** A session cookie made as sign-in makes it. */
  const token = (name: string) => signSession(sessionPayload({ name, sessionsValidFrom: changedAt[name]!, ttlMs: 3_600_000 }), SECRET);
  const auditCount = () => {
    const db = new Database(journal.file, { readonly: true });
    const n = db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
    db.close();
    return n;
  };

  test("10,000 anonymous and viewer posts grow the journal and its WAL by 0 bytes and add no audit row; the operator on the same address still acts", async ({
    page,
  }) => {
    // A genuine post of "resolve by hand", as the operator's browser makes it, caught before it is sent.
    await page.context().addCookies([{ name: SESSION_COOKIE, value: token(OPERATOR.name), url: server.url }]);
    const post = await captureResolvePost(page, server.url, NOTE);
    const body = post.postDataBuffer()!;
    const pathname = new URL(post.url()).pathname;
    const headers = Object.fromEntries(
      Object.entries(await post.allHeaders()).filter(([k]) => !["cookie", "content-length", "host", "connection"].includes(k.toLowerCase())),
    );
    headers.origin = server.url;
    const as = (name: string | null) => (name ? { ...headers, cookie: `${SESSION_COOKIE}=${token(name)}` } : headers);

    const journalBytes = () => fileSize(journal.file) + fileSize(`${journal.file}-wal`);
    const bytesBefore = journalBytes();
    const auditsBefore = auditCount();

    const replies = new Map<string, number>();
    const classify = (who: string, r: Reply) => {
      const kind =
        r.status !== 200
          ? `status ${r.status}`
          : /Too many actions/.test(r.body)
            ? "limited"
            : /Sign in to act|is a viewer: only operators can act/.test(r.body)
              ? "turned away"
              : "other";
      replies.set(`${who} ${kind}`, (replies.get(`${who} ${kind}`) ?? 0) + 1);
    };
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < POSTS) {
          const i = next++;
          const who = i % 2 === 0 ? null : VIEWER.name;
          classify(who ?? "anonymous", await send(server.url, { path: pathname, headers: as(who), body, agent: floodAgent }));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `flood: ${POSTS.toLocaleString("en")} action posts (${CONCURRENCY} at a time) in ${seconds.toFixed(1)} s, ${(POSTS / seconds).toFixed(0)} a second: ${JSON.stringify(Object.fromEntries(replies))}`,
    );

    // Every post answered with a refusal: the first ones by the guard, the rest by the limit.
    expect([...replies.keys()].sort()).toEqual(["anonymous limited", "anonymous turned away", "vic limited", "vic turned away"]);
    expect(replies.get("anonymous turned away")! + replies.get("anonymous limited")!).toBe(POSTS / 2);
    // 60 posts a minute each: however long the flood took (on a loaded machine, minutes), at most
    // 60 per minute it spanned got past the limit to be turned away; the rest were limited.
    const allowance = 60 * (Math.floor(seconds / 60) + 2);
    expect(replies.get("anonymous turned away")).toBeLessThanOrEqual(allowance);
    expect(replies.get("vic turned away")).toBeLessThanOrEqual(allowance);

    // Nothing reached the bot's journal.
    expect(journalBytes() - bytesBefore).toBe(0);
    expect(auditCount()).toBe(auditsBefore);

    // The operator shares the strangers' address (127.0.0.1) but not their allowance.
    const mine = await send(server.url, { path: pathname, headers: as(OPERATOR.name), body });
    expect(mine.status).toBe(200);
    expect(mine.body).not.toMatch(/Too many actions/);
    expect(auditCount()).toBe(auditsBefore + 1);
    expect(journal.bot.writer.unsettledOrders().filter((o) => o.state === "unknown")).toHaveLength(0);

    // The server log has the trace: bounded, rate-limited, without what was posted.
    const lines = server
      .output()
      .split("\n")
      .filter((l) => l.includes("refused, not audited"));
    expect(lines.some((l) => l.includes("anonymous from 127.0.0.1 posted resolve_order_manual"))).toBe(true);
    expect(lines.some((l) => l.includes("viewer:vic from 127.0.0.1 posted resolve_order_manual"))).toBe(true);
    expect(lines.length).toBeLessThan(200);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(400);
    expect(server.output()).not.toContain(NOTE);
  });
});
