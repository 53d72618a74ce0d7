/**
 * `npm run demo` as a person runs it: from a terminal, Ctrl-C to stop. It runs on a free port and a
 * temporary data folder, must serve the console with both bots, write a trip into the journal, and
 * leave no process and an intact journal behind once interrupted.
 *
 * The default is the production console: with a build no older than the sources (scripts/test.mjs
 * builds before the browser tests) it starts at once, otherwise it builds first, which the generous
 * timeout allows for. `--dev` serves the development server instead.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { tempDir } from "../helpers/journal";
import { freePort } from "@/tools/lib/console-server";
import { childGroups, groupAlive, killDemo } from "../helpers/e2e/demo";

const root = path.resolve(import.meta.dirname, "../..");

/** Every process whose command line or environment mentions `text`: the demo's children carry its folder. */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    for (const file of ["cmdline", "environ"]) {
      try {
        if (fs.readFileSync(`/proc/${pid}/${file}`, "latin1").includes(text)) {
          found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").trim()}`);
          break;
        }
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
  }
  return found;
}

test.describe("npm run demo", () => {
  let demo: ChildProcess | undefined;
  let output = "";
  // Only if the test failed half way: never leave the demo running.
  test.afterEach(() => killDemo(demo?.pid, output));

  // "start": the default, the production console (built by the test run). "dev": --dev, for working on the console.
  for (const server of ["start", "dev"] as const)
    test(`serves the console (${server === "start" ? "by default the production build" : "with --dev the development server"}) with both bots and writes a trip; Ctrl-C stops everything and leaves an intact journal`, async ({
      page,
    }) => {
      test.setTimeout(6 * 60_000);
      const startedAt = Date.now();
      const dir = tempDir("demo");
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      output = "";
      // Its own process group, as a terminal gives a command: Ctrl-C is SIGINT to that whole group.
      const env: NodeJS.ProcessEnv = { ...process.env, DRIFTWATCH_DEMO_PORT: String(port), DRIFTWATCH_DEMO_DIR: dir, FORCE_COLOR: "0" };
      // The default as a newcomer gets it: nothing set.
      delete env.DRIFTWATCH_DEMO_SERVER;
      delete env.DRIFTWATCH_DEMO_VENUE_PORT;
      demo = spawn("npm", ["run", "demo", "--", "--speed", "3", ...(server === "dev" ? ["--dev"] : [])], {
        cwd: root,
        detached: true,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      demo.stdout?.on("data", (d) => (output += d));
      demo.stderr?.on("data", (d) => (output += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        demo!.once("exit", (code, signal) => resolve({ code, signal })),
      );

      // A build, if one is needed, comes first; the console answering is the demo's own signal.
      await expect.poll(() => output, { timeout: 5 * 60_000, message: "the demo never said where to open it" }).toContain(`demo: open ${url}`);
      await expect(async () => {
        await page.goto(url);
        await expect(page.getByTestId("bot-card")).toHaveCount(2, { timeout: 2_000 });
      }).toPass({ timeout: 30_000 });
      // A figure, not an assertion (tests never time the machine): how long until both bots showed.
      console.log(`demo (next ${server}): two bot cards ${((Date.now() - startedAt) / 1000).toFixed(1)} s after npm run demo`);
      await expect(page.locator('[data-testid="bot-card"][data-bot="alpha"]')).toBeVisible();
      await expect(page.locator('[data-testid="bot-card"][data-bot="beta"]')).toBeVisible();
      // The development server's badge (Next's dev overlay, in its <nextjs-portal>) sits over the
      // page; the production console has none.
      await expect(page.locator("nextjs-portal")).toHaveCount(server === "dev" ? 1 : 0);
      // It printed the commands for its own files (the CLIs' defaults are not the demo's).
      expect(output).toContain(`DRIFTWATCH_JOURNAL=${path.join(dir, "demo.db")} npm run journal -- check`);
      expect(output).toContain(`DRIFTWATCH_ACCOUNTS_DB=${path.join(dir, "demo-accounts/accounts.db")} npm run accounts -- list`);

      // The sign-in it prints works: an operator who can clear the halt the demo is about to cause.
      const password = output.match(/sign in as "demo" with password (\S+)/)?.[1];
      expect(password, "the demo did not say how to sign in").toBeTruthy();
      await page.goto(`${url}/login`);
      await page.getByLabel("Account name").fill("demo");
      await page.getByLabel("Password").fill(password!);
      const signInAt = Date.now();
      await page.getByRole("button", { name: "Sign in" }).click();
      // The development server compiles the action and the page it lands on at first use: on a busy
      // 2-core machine that alone has taken over 5 s.
      await expect(page.getByTestId("signed-in-as")).toContainText("demo (operator)", { timeout: server === "dev" ? 60_000 : 10_000 });
      console.log(`demo (next ${server}): signed in ${((Date.now() - signInAt) / 1000).toFixed(1)} s after the click`);
      // It went to the account command on standard input: no process shows it in its arguments.
      expect(processesMentioning(password!)).toEqual([]);

      const journal = path.join(dir, "demo.db");
      const trips = () => {
        const db = new Database(journal, { readonly: true });
        try {
          return (db.prepare(`SELECT count(*) AS n FROM breaker_events WHERE kind = 'trip'`).get() as { n: number }).n;
        } finally {
          db.close();
        }
      };
      // The opening act trips a breaker 45 s in at speed 1 (15 s at speed 3).
      await expect.poll(trips, { timeout: 60_000, message: "no trip in the demo's first minutes" }).toBeGreaterThan(0);
      // Faster, never ahead: at --speed 3 the bots' times stay on the wall clock, so nothing reads
      // "in the future" and no bot is unknown for its clock (a halt could not be cleared otherwise).
      await page.goto(url);
      await expect(page.getByTestId("bot-card")).toHaveCount(2);
      await expect(page.locator("main")).not.toContainText(/in the future|clock/);

      const groups = childGroups(output);
      expect(groups).toHaveLength(2);

      // Paused as it tells a newcomer to, a bot reads stale within the demo's own limit (8 of its
      // 2.5 s cycles, 6.7 s at speed 3), not the minute a real bot's default gives, and recovers.
      const pause = output.match(/kill -STOP -(\d+), then kill -CONT -\1/)?.[1];
      expect(pause, "the demo did not say how to pause its bots").toBeTruthy();
      expect(groups).toContain(Number(pause));
      const beta = page.locator('[data-testid="bot-card"][data-bot="beta"]');
      process.kill(-Number(pause), "SIGSTOP");
      try {
        await expect(beta).toContainText("heartbeat is stale", { timeout: 20_000 });
      } finally {
        process.kill(-Number(pause), "SIGCONT");
      }
      await expect(beta).not.toContainText("heartbeat is stale", { timeout: 20_000 });

      process.kill(-demo.pid!, "SIGINT");
      // npm passes the interrupt on by ending itself with SIGINT once the demo has exited (cleanly: 0).
      expect([
        { code: 0, signal: null },
        { code: null, signal: "SIGINT" },
      ]).toContainEqual(await exited);
      expect(output).toContain("bots: stopped, journal closed");
      expect(output).toContain("demo: stopped.");
      // With this page still open: its stream once held the console up until the demo killed it.
      expect(output).not.toContain("did not stop in time");
      for (const pgid of [demo.pid!, ...groups]) expect(groupAlive(pgid), `process group ${pgid} still has processes`).toBe(false);
      // Next's development server starts a detached telemetry flush as it exits (a no-op with
      // telemetry disabled, in a process group of its own); it ends by itself within seconds. Anything
      // still there after that is a process the demo left behind.
      await expect.poll(() => processesMentioning(dir), { timeout: 15_000 }).toEqual([]);

      const db = new Database(journal, { readonly: true });
      try {
        expect(db.prepare(`PRAGMA integrity_check`).all()).toEqual([{ integrity_check: "ok" }]);
        expect(db.prepare(`SELECT bot_id FROM bots ORDER BY bot_id`).all()).toEqual([{ bot_id: "alpha" }, { bot_id: "beta" }]);
        const perBot = db.prepare(`SELECT bot_id, count(*) AS n FROM reconciliations GROUP BY bot_id ORDER BY bot_id`).all() as { bot_id: string; n: number }[];
        expect(perBot.map((r) => r.bot_id)).toEqual(["alpha", "beta"]);
        expect(perBot.every((r) => r.n > 0)).toBe(true);
      } finally {
        db.close();
      }
    });

  // A port held by someone else: one line naming it and how to choose others, exit 2, and the
  // previous run's journal untouched (it used to be erased first, then the console failed to start).
  for (const which of ["console", "venue gateway"] as const)
    test(`a busy ${which} port stops the demo before it touches the previous run's files`, async () => {
      const dir = tempDir("demo-busy");
      const journal = path.join(dir, "demo.db");
      fs.writeFileSync(journal, "the previous run's journal\n");
      const before = fs.statSync(journal).mtimeMs;
      // A free port whose neighbour (the gateway's) may be anyone's: held here, or another pair tried
      // (a CI run met port + 1 taken by another test's process: EADDRINUSE before the demo started).
      let port = 0;
      let held = 0;
      const holder = net.createServer();
      for (let attempt = 0; ; attempt++) {
        port = await freePort();
        held = which === "console" ? port : port + 1;
        const listened = await new Promise<boolean>((resolve, reject) => {
          holder.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" && attempt < 20 ? resolve(false) : reject(e)));
          holder.listen(held, "127.0.0.1", () => resolve(true));
        });
        if (listened) break;
      }
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, DRIFTWATCH_DEMO_PORT: String(port), DRIFTWATCH_DEMO_DIR: dir, FORCE_COLOR: "0" };
        delete env.DRIFTWATCH_DEMO_VENUE_PORT;
        delete env.DRIFTWATCH_DEMO_SERVER;
        const child = spawn("npm", ["run", "demo"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
        expect(code).toBe(2);
        // This test process holds the port: it is named.
        const named = `port ${held} (for the ${which === "console" ? "console" : "venue gateway, the console's port + 1"}) is taken by process ${process.pid} (`;
        expect(out).toContain(`demo: ${named}`);
        expect(out).toContain("nothing was changed. Choose another: ");
        expect(out).toContain(which === "console" ? "npm run demo -- --port " : "DRIFTWATCH_DEMO_VENUE_PORT=");
        expect(out).not.toContain("demo: open");
        expect(out).not.toContain("stopped unexpectedly");
        expect(fs.readFileSync(journal, "utf8")).toBe("the previous run's journal\n");
        expect(fs.statSync(journal).mtimeMs).toBe(before);
        expect(fs.readdirSync(dir)).toEqual(["demo.db"]);
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });
});
