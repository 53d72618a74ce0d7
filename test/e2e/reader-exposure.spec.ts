/**
 * What a reader who is not signed in can learn: not the journal's absolute path (it says where the
 * bot runs and as whom), and not a page for a bot that does not exist (a 404, never a 200).
 */
import path from "node:path";
import { expect, test } from "@playwright/test";
import { sqliteCli, tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { healthyJournal } from "../helpers/e2e/journals";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";

const SECRET = "reader-exposure-spec-session-secret-over-32";
const VIEWER = { name: "vic", password: "vic's long password here" };

function accountsWithViewer(): string {
  const accountsDb = path.join(tempDir("e2e-reader-acc"), "accounts.db");
  addAccountWithCli(accountsDb, { name: VIEWER.name, role: "viewer", password: VIEWER.password });
  return accountsDb;
}

test.describe("an unreadable journal, to a reader who is not signed in", () => {
  let server: ConsoleServer;
  let folder: string;

  test.beforeAll(async () => {
    folder = tempDir("e2e-reader-missing");
    // A journal that is not there: every page and route says so.
    server = await startConsole({
      journal: path.join(folder, "journal.db"),
      env: { DRIFTWATCH_ACCOUNTS_DB: accountsWithViewer(), DRIFTWATCH_SESSION_SECRET: SECRET },
    });
  });
  test.afterAll(async () => server?.stop());

  test("names the file but not its folder; a signed-in reader sees the whole path", async ({ page, request }) => {
    const anonymous = await request.get(`${server.url}/api/overview`);
    expect(anonymous.status()).toBe(503);
    const body = await anonymous.text();
    expect(body).toContain("journal.db (sign in to see the full path)");
    expect(body).not.toContain(folder);
    const exported = await request.get(`${server.url}/api/incidents/export?format=json`);
    expect(exported.status()).toBe(503);
    expect(await exported.text()).not.toContain(folder);

    await page.goto(server.url);
    await expect(page.getByTestId("journal-error")).toBeVisible();
    expect(await page.content()).not.toContain(folder);

    await signIn(page, server.url, VIEWER);
    await page.goto(server.url);
    await expect(page.getByRole("alert", { name: "The journal cannot be read" })).toContainText(path.join(folder, "journal.db"));
    const signedIn = await page.request.get(`${server.url}/api/overview`);
    expect(signedIn.status()).toBe(503);
    expect(await signedIn.text()).toContain(path.join(folder, "journal.db"));
  });
});

test.describe("a bot the journal does not have", () => {
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof healthyJournal>>;

  test.beforeAll(async () => {
    journal = await healthyJournal();
    server = await startConsole({ journal: journal.file });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  test("is a 404 naming the id; a bot it has is a 200", async ({ page }) => {
    const missing = await page.goto(`${server.url}/bots/${encodeURIComponent("nobody here")}`);
    expect(missing?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "No bot nobody here" })).toBeVisible();
    // Decoded once, as the page decodes it: an id holding "%20" is named as written.
    expect((await page.goto(`${server.url}/bots/${encodeURIComponent("a%20b")}`))?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "No bot a%20b" })).toBeVisible();
    const present = await page.goto(`${server.url}/bots/gamma`);
    expect(present?.status()).toBe(200);
  });
});

test.describe("a console that requires sign-in to read", () => {
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof healthyJournal>>;

  test.beforeAll(async () => {
    journal = await healthyJournal();
    server = await startConsole({
      journal: journal.file,
      env: { DRIFTWATCH_ACCOUNTS_DB: accountsWithViewer(), DRIFTWATCH_SESSION_SECRET: SECRET, DRIFTWATCH_REQUIRE_SIGN_IN: "1" },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  test("shows a stranger nothing but the sign-in page, then the page they asked for", async ({ page, request }) => {
    const api = await request.get(`${server.url}/api/overview`);
    expect(api.status()).toBe(401);
    expect(await api.json()).toEqual({ ok: false, error: { code: "unauthorized", message: expect.stringContaining("Sign in to read") } });
    expect(await api.text()).not.toContain("gamma");
    const audit = await request.get(`${server.url}/audit?actor=operator`, { maxRedirects: 0 });
    expect(audit.status()).toBe(303);
    expect(new URL(audit.headers().location ?? "", server.url).toString()).toBe(`${server.url}/login?next=${encodeURIComponent("/audit?actor=operator")}`);
    const post = await request.post(`${server.url}/bots/gamma`, { form: { botId: "gamma" }, maxRedirects: 0 });
    expect(post.status()).toBe(401);

    await page.goto(`${server.url}/bots/gamma`);
    await expect(page).toHaveURL(/\/login\?next=%2Fbots%2Fgamma$/);
    await expect(page.getByTestId("sign-in-required")).toContainText("DRIFTWATCH_REQUIRE_SIGN_IN=1");
    await page.getByLabel("Account name").fill(VIEWER.name);
    await page.getByLabel("Password").fill(VIEWER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${server.url}/bots/gamma`);
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
    expect((await page.request.get(`${server.url}/api/overview`)).status()).toBe(200);
  });

  test("the sign-in page's HTML tells a stranger nothing of the journal, not even a halt; a reader signed in gets the halt in the page's HTML", async ({
    page,
    request,
  }) => {
    // The root layout reads the halt signal for every page's HTML (components/live/halt-signal.tsx); behind the gate, not for a stranger.
    sqliteCli(
      journal.file,
      `UPDATE breakers SET halted = 1, reason = 'halted by hand: drill', changed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'gamma';`,
    );
    try {
      const login = await request.get(`${server.url}/login`);
      expect(login.status()).toBe(200);
      const html = await login.text();
      expect(html).toContain("Sign in");
      expect(html).not.toContain("gamma");
      expect(html).not.toContain("HALTED");
      expect(html).not.toContain("favicon-halted");

      await signIn(page, server.url, VIEWER);
      const signedIn = await (await page.request.get(`${server.url}/doubtful`)).text();
      expect(signedIn).toContain('data-testid="halt-banner"');
      expect(signedIn).toContain("favicon-halted.svg");
    } finally {
      sqliteCli(journal.file, `UPDATE breakers SET halted = 0, reason = NULL, version = version + 1 WHERE bot_id = 'gamma';`);
    }
  });
});
