/**
 * Two consoles behind one balancer, each its own `next start`, sharing nothing but the sign-in
 * limiter's PostgreSQL (DRIFTWATCH_LIMITER_URL; and, as on any pair of hosts, the session secret and
 * the accounts). A stranger alternating guesses between them is held back as soon as their failures
 * add up to the limit, long before either console alone has seen five.
 */
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createAccount } from "@/lib/auth/accounts";
import { openAccountsDb } from "@/lib/db/accounts-file";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { repoRoot, tempDir } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";

const SECRET = "shared-limit-session-secret-Qw8rT3yU6iO9pA2s";
const OLGA = { name: "olga", password: "olga's long password here" };

test.describe("the sign-in limit shared by two console processes", () => {
  test.skip(!postgresAvailable, "PostgreSQL's binaries are not installed (npm run setup); CI never skips");
  test.describe.configure({ mode: "serial", timeout: 180_000 });
  let pg: PostgresServer;
  let consoles: ConsoleServer[] = [];
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;

  test.beforeAll(async () => {
    pg = await startPostgres({ label: "e2e-limiter" });
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-shared-limit"), "accounts.db");
    const accounts = openAccountsDb(accountsDb, { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
    await createAccount(accounts.db, { name: OLGA.name, role: "operator", password: OLGA.password });
    accounts.sqlite.close();
    const env = { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET, DRIFTWATCH_LIMITER_URL: pg.url };
    consoles = await Promise.all([startConsole({ journal: journal.file, env }), startConsole({ journal: journal.file, env })]);
  });
  test.afterAll(async () => {
    await Promise.all(consoles.map((c) => c.stop()));
    journal?.close();
    await pg?.stop();
  });

  /** One wrong guess on the given console; the answer the form shows. */
  async function guess(page: Page, url: string, i: number): Promise<string> {
    await page.goto(`${url}/login`);
    await page.getByLabel("Account name").fill(OLGA.name);
    await page.getByLabel("Password").fill(`wrong guess number ${i}`);
    await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.getByRole("button", { name: "Sign in" }).click()]);
    const alert = page.locator("#login-error");
    await expect(alert).toHaveText(/Wrong account name or password|Too many failed attempts/, { timeout: 20_000 });
    return (await alert.textContent()) ?? "";
  }

  test("guesses alternated between the two consoles are held back once they add up, on both", async ({ browser }) => {
    const stranger = await browser.newContext();
    try {
      const page = await stranger.newPage();
      const answers: { on: number; text: string }[] = [];
      const heldOn = () => new Set(answers.filter((a) => a.text.startsWith("Too many")).map((a) => a.on));
      // Alternating: each console sees every other guess. Alone, neither would hold one back before
      // its own sixth (the eleventh in all); shared, the sixth in all already waits, or one soon
      // after on a slow machine (each failure past five doubles the wait, from 1 s). Go on until
      // both consoles have held one back.
      for (let i = 0; i < 16 && heldOn().size < 2; i++) answers.push({ on: i % 2, text: await guess(page, consoles[i % 2]!.url, i) });
      const log = answers.map((a) => `console ${a.on}: ${a.text}`).join("\n");
      const held = answers.findIndex((a) => a.text.startsWith("Too many"));
      expect(answers.slice(0, 5).map((a) => a.text)).toEqual(Array.from({ length: 5 }, () => "Wrong account name or password."));
      expect(held, log).toBeGreaterThanOrEqual(5);
      expect(held, log).toBeLessThan(10);
      expect(heldOn(), log).toEqual(new Set([0, 1]));
      const rows = await fetchFailures(pg.url);
      expect(rows).toEqual(expect.arrayContaining([expect.objectContaining({ key: "account:olga" })]));
    } finally {
      await stranger.close();
    }
  });
});

async function fetchFailures(url: string): Promise<{ key: string; n: number }[]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(`SELECT key, cardinality(failures)::int AS n FROM driftwatch_console.sign_in_failures ORDER BY key`)).rows;
  } finally {
    await client.end();
  }
}
