/**
 * Against the built console: a reader who is not signed in sees roles, never operators' names, on
 * /audit, /breakers, their JSON and the incident export; a signed-in one sees names. Notes with a
 * right-to-left override or other invisible characters show as visible markers on /audit and
 * /breakers, and the real form refuses a new one with a message naming the character.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test, type Page } from "@playwright/test";
import { appendAudit } from "@/lib/audit/log";
import { repoRoot, tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { addAccountWithCli } from "../helpers/e2e/accounts";

const SECRET = "audit-readers-spec-session-secret-longer-than-32";
const AUDIT_KEY = "audit-readers-spec-audit-key-longer-than-32";
const OPERATOR = { name: "ana", password: "ana's long password here" };
const RLO = "\u202E";

test.describe("who and what a reader sees of operators' actions", () => {
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;
  let accountsDb: string;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    accountsDb = path.join(tempDir("e2e-readers"), "accounts.db");
    addAccountWithCli(accountsDb, { name: OPERATOR.name, role: "operator", password: OPERATOR.password });
    const db = new Database(journal.file);
    const now = new Date().toISOString();
    db.transaction(() => {
      appendAudit(
        db,
        {
          at: now,
          actor: "operator:ana",
          action: "acknowledge_drift",
          target: "beta/ETHUSDT",
          outcome: "applied",
          detail: { note: `checked ${RLO}ahpla deraelc with the desk` },
        },
        AUDIT_KEY,
      );
      appendAudit(
        db,
        {
          at: now,
          actor: "operator:ben",
          action: "clear_halt",
          target: `beta${RLO}`,
          outcome: "refused",
          code: "refused",
          detail: { reason: "requested by operator:ana" },
        },
        AUDIT_KEY,
      );
      db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('beta', ?, 'clear', ?, 'operator:ana', NULL)`).run(
        now,
        `desk agreed ${RLO}ko`,
      );
    }).immediate();
    db.close();
    server = await startConsole({
      journal: journal.file,
      env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET, DRIFTWATCH_AUDIT_KEY: AUDIT_KEY },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(OPERATOR.name);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
  }

  const NAMED = /(operator|viewer):\w/;

  test("a reader who is not signed in sees roles, not names, on /audit, /breakers, their JSON and the incident export", async ({ page }) => {
    await page.goto(`${server.url}/audit`);
    await expect(page.getByTestId("audit-entry")).toHaveCount(2);
    const audit = await page.locator("main").innerText();
    expect(audit).not.toMatch(NAMED);
    await expect(page.getByTestId("audit-entry").first()).toContainText("operator · clear_halt");
    expect(await page.locator("#audit-actor option").allTextContents()).toEqual(["everyone", "operator"]);

    // A name in the filter is read as its role: it cannot tell a stranger whether ana acted.
    await page.goto(`${server.url}/audit?actor=operator:ana`);
    await expect(page.getByTestId("audit-entry")).toHaveCount(2);
    expect(await page.locator("main").innerText()).not.toMatch(NAMED);

    await page.goto(`${server.url}/breakers`);
    await expect(page.getByTestId("breaker-event").first()).toBeVisible();
    expect(await page.locator("main").innerText()).not.toMatch(NAMED);

    // The overview names no actor at all; the others show the role in place of the name.
    const showsActors = ["/api/breakers", "/api/incidents/export?format=json", "/api/incidents/export?format=csv"];
    const bodies = new Map<string, string>();
    for (const route of ["/api/overview", ...showsActors]) {
      const res = await page.request.get(`${server.url}${route}`);
      expect(res.status(), route).toBe(200);
      const body = await res.text();
      expect(body, route).not.toMatch(NAMED);
      bodies.set(route, body);
    }
    for (const route of showsActors) expect(bodies.get(route), route).toContain("operator");
  });

  test("a signed-in reader sees operators' names", async ({ page }) => {
    await signIn(page);
    await page.goto(`${server.url}/audit`);
    await expect(page.getByTestId("audit-entry").first()).toContainText("operator:ben");
    // Not live: it says when it was read.
    await expect(page.getByTestId("audit-read-at")).toHaveText(/^as of \d\d:\d\d:\d\d UTC: reload for newer entries$/);
    expect(await page.locator("#audit-actor option").allTextContents()).toEqual(["everyone", "operator:ana", "operator:ben"]);
    // Each entry's Detail looks like what it is, a disclosure (its ▶ marker), and is 24 px to a finger.
    const toggle = page.getByTestId("audit-detail-toggle").first();
    expect(await toggle.evaluate((el) => getComputedStyle(el).display)).toBe("list-item");
    expect((await toggle.boundingBox())!.height).toBeGreaterThanOrEqual(24);
    await toggle.click();
    await expect(page.getByTestId("audit-entry").first().locator("details")).toHaveAttribute("open", "");
    const breakers = await (await page.request.get(`${server.url}/api/breakers`)).text();
    expect(breakers).toContain("operator:ana");
  });

  test("a right-to-left override in a note, a target or a reason shows as a marker, never as reordered text", async ({ page }) => {
    await page.goto(`${server.url}/audit`);
    for (const d of await page.locator("main details").all()) await d.locator("summary").click();
    const audit = await page.locator("main").innerText();
    expect(audit).toContain("checked ⟨U+202E⟩ahpla deraelc with the desk");
    expect(audit).toContain("beta⟨U+202E⟩");
    expect(audit).not.toContain(RLO);
    await page.goto(`${server.url}/breakers`);
    const breakers = await page.locator("main").innerText();
    expect(breakers).toContain("desk agreed ⟨U+202E⟩ko");
    expect(breakers).not.toContain(RLO);
  });

  test("the resolve form refuses a note with a right-to-left override and names the character", async ({ page }) => {
    await signIn(page);
    await page.goto(`${server.url}/doubtful`);
    await page.getByText("Resolve by hand").first().click();
    await page.getByLabel("Status on the exchange's own screen").selectOption("filled");
    await page.getByLabel(/Note \(required\)/).fill(`seen ${RLO}dellif on the venue`);
    await page.getByRole("button", { name: "Record resolution" }).click();
    await expect(page.getByText("The note contains an invisible direction or control character (U+202E); remove it.")).toBeVisible();
    expect(journal.bot.writer.unsettledOrders().map((o) => o.state)).toContain("unknown");
  });

  test("an applied action publishes the audit head to the server log and the head file, and verify --expect-head holds it", async ({ page }) => {
    await signIn(page);
    await page.goto(`${server.url}/doubtful`);
    // The halt banner can arrive as the page hydrates and move the card under the click: open the
    // form until it shows, never toggling an open one shut.
    const status = page.getByLabel("Status on the exchange's own screen");
    await expect(async () => {
      if (!(await status.isVisible())) await page.locator("main").getByText("Resolve by hand", { exact: true }).first().click();
      await expect(status).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await status.selectOption("filled");
    await page.getByLabel(/Note \(required\)/).fill("venue screen shows it filled");
    await page.getByRole("button", { name: "Record resolution" }).click();
    await expect.poll(() => journal.bot.writer.unsettledOrders().length).toBe(0);
    const db = new Database(journal.file, { readonly: true });
    const last = db.prepare(`SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1`).get() as { id: number; hash: string };
    db.close();
    expect(last.hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    await expect.poll(() => server.output()).toContain(`driftwatch: audit head #${last.id} ${last.hash} of ${journal.file}`);
    const heads = fs
      .readFileSync(path.join(path.dirname(accountsDb), "audit-heads.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    expect(JSON.parse(heads.at(-1)!)).toMatchObject({ journal: journal.file, entries: last.id, head: last.hash });
    const verify = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/audit.ts", "verify", journal.file, "--expect-head"], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_AUDIT_KEY: AUDIT_KEY },
    });
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(`holds the published head #${last.id}`);
  });
});
