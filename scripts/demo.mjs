// npm run demo [-- --port P] [-- --speed N] [-- --seed S] [-- --on-call] [-- --dev]
//
// The console and two demo bots, together, on a fresh journal. In this order, so that nothing of the
// previous run is erased before the demo can start: the ports are checked (the console's and the
// venue gateway's; either taken is one line and exit 2), the production console is built if the
// build is missing or older than the sources (--dev serves the development server instead), the
// ports are checked again, then ./data/demo.db is recreated and migrated and a fresh accounts file
// (./data/demo-accounts/) gets one operator, "demo", with a new random password printed below the
// URL. The bots (scripts/demo-bots.ts) and the console (on 127.0.0.1) start, each in its own process
// group. Ctrl-C or SIGTERM stops both: the bots finish their current write and close the journal,
// the console's whole group is ended, and nothing is left running.
//
// Environment: DRIFTWATCH_DEMO_PORT (default 3000), DRIFTWATCH_DEMO_VENUE_PORT (default the port + 1),
// DRIFTWATCH_DEMO_DIR (default ./data), DRIFTWATCH_DEMO_SERVER (start, the default, or dev: as --dev).
// Plain Node on purpose: it must run before anything is built or compiled.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildState } from "../tools/lib/build-state.mjs";

let stopping = false;
/** The child processes: the build while it runs, then the bots and the console. */
let building;
const children = [];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => path.join(root, "node_modules/.bin", name);
const say = (line) => console.log(`demo: ${line}`);
const fail = (line, code) => {
  console.error(`demo: ${line}`);
  process.exit(code);
};

const USAGE =
  "usage: npm run demo [-- --port P] [--speed N] [--seed S] [--on-call] [--dev]\n" +
  "env: DRIFTWATCH_DEMO_PORT (3000; --port wins), DRIFTWATCH_DEMO_VENUE_PORT (the port + 1), DRIFTWATCH_DEMO_DIR (./data), DRIFTWATCH_DEMO_SERVER (start|dev)";
let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: "string" },
      speed: { type: "string", default: "1" },
      seed: { type: "string", default: "1" },
      "on-call": { type: "boolean", default: false },
      dev: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  }));
} catch (error) {
  // An unknown or incomplete option: one line and the usage, not Node's stack trace.
  fail(`${error.message}\n${USAGE}`, 2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const speed = Number(values.speed);
if (!(speed > 0) || !Number.isFinite(speed)) fail(`--speed must be a number above 0, got ${values.speed}`, 2);

const portFrom = (name, fallback) => {
  const raw = process.env[name];
  const n = Number(raw ?? fallback);
  const said = name === "DRIFTWATCH_DEMO_PORT" && values.port !== undefined ? "--port" : name;
  if (!Number.isInteger(n) || n < 1 || n > 65535) fail(`${said} must be a port number (1 to 65535), got ${raw}`, 2);
  return n;
};
if (values.port !== undefined) process.env.DRIFTWATCH_DEMO_PORT = values.port;
const port = portFrom("DRIFTWATCH_DEMO_PORT", 3000);
// The console asks the bots' simulated venues about an order through the venue gateway.
const venuePort = portFrom("DRIFTWATCH_DEMO_VENUE_PORT", port + 1);
if (venuePort === port) fail(`DRIFTWATCH_DEMO_VENUE_PORT must differ from the console's port ${port}`, 2);

// DRIFTWATCH_DEMO_SERVER: "start" (the default) serves the production build, building it first if
// it is missing or older than the sources; "dev" (or --dev) the development server, for working on
// the console: each page compiles on its first visit and Next's badge sits over the page.
const envServer = process.env.DRIFTWATCH_DEMO_SERVER;
if (envServer !== undefined && envServer !== "start" && envServer !== "dev") fail(`DRIFTWATCH_DEMO_SERVER must be "start" or "dev", got ${envServer}`, 2);
if (values.dev && envServer === "start") fail("--dev and DRIFTWATCH_DEMO_SERVER=start disagree: drop one", 2);
const serverMode = values.dev ? "dev" : (envServer ?? "start");

const dataDir = path.resolve(root, process.env.DRIFTWATCH_DEMO_DIR ?? "data");
const journal = path.join(dataDir, "demo.db");
// A folder of its own: the console keeps its generated session secret beside the accounts file.
const accountsDir = path.join(dataDir, "demo-accounts");
const accounts = path.join(accountsDir, "accounts.db");
const url = `http://127.0.0.1:${port}`;

// ---- both ports free, before any file is touched ---------------------------------------------------

/** Whether 127.0.0.1:port can be listened on, as the console and the gateway will. */
const portFree = (p) =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port: p, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });

/**
 * Which process listens on the port, when Linux's /proc says so cheaply (a process of another user
 * hides its sockets: then nothing is named).
 */
function portHolder(p) {
  try {
    const hex = p.toString(16).toUpperCase().padStart(4, "0");
    const inodes = new Set();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text = "";
      try {
        text = fs.readFileSync(table, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        // local address "ADDR:PORT", state 0A = LISTEN, inode in column 10
        if (f.length > 9 && f[1]?.endsWith(`:${hex}`) && f[3] === "0A") inodes.add(`socket:[${f[9]}]`);
      }
    }
    if (inodes.size === 0) return undefined;
    for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      let fds;
      try {
        fds = fs.readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let target;
        try {
          target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        if (inodes.has(target)) {
          const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ").trim();
          return `process ${pid} (${cmd.length > 80 ? `${cmd.slice(0, 77)}...` : cmd})`;
        }
      }
    }
  } catch {
    // not Linux, or /proc unreadable: the port alone is named
  }
  return undefined;
}

async function checkPorts() {
  const other = (p) => (p + 100 <= 65535 ? p + 100 : p - 100);
  for (const [p, what, fix] of [
    [
      port,
      "for the console",
      `npm run demo -- --port ${other(port)} (the venue gateway then takes ${other(port) + 1} unless DRIFTWATCH_DEMO_VENUE_PORT is set)`,
    ],
    [
      venuePort,
      `for the venue gateway${process.env.DRIFTWATCH_DEMO_VENUE_PORT ? "" : ", the console's port + 1"}`,
      `DRIFTWATCH_DEMO_VENUE_PORT=${other(venuePort)} npm run demo, or npm run demo -- --port ${other(port)} to move both`,
    ],
  ]) {
    if (await portFree(p)) continue;
    const holder = portHolder(p);
    fail(`port ${p} (${what}) is taken${holder ? ` by ${holder}` : ""}; nothing was changed. Choose another: ${fix}`, 2);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A second Ctrl-C while stopping changes nothing: the bots are already finishing their write.
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGHUP", () => void shutdown(0));

await checkPorts();
say(`the console on port ${port}, the venue gateway on port ${venuePort}`);

// ---- the production console, built once ------------------------------------------------------------
// Built before anything is erased: a build that fails leaves the previous run's journal as it was.
if (serverMode === "dev") {
  say("serving the console with the development server (--dev: each page compiles on its first visit)");
} else {
  const { builtAt, current } = buildState(root);
  if (!current) {
    say(
      builtAt === 0
        ? "building the production console, once (30 to 60 s on a quiet machine; --dev skips it)"
        : "the sources changed since the last build: rebuilding the production console",
    );
    const startedAt = Date.now();
    building = spawn(bin("next"), ["build"], { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    // Next is silent for long stretches while it compiles: a line every 10 s says it is still going.
    const ticker = setInterval(() => say(`still building (${Math.round((Date.now() - startedAt) / 1000)} s)`), 10_000);
    const { code, signal } = await new Promise((resolve) => building.once("exit", (c, sig) => resolve({ code: c, signal: sig })));
    clearInterval(ticker);
    building = undefined;
    if (stopping) process.exit(0);
    if (code !== 0)
      fail(
        `the console did not build (${signal ?? `exit code ${code}`}); fix the error above and run npm run demo again (the previous run's files are untouched)`,
        1,
      );
    say(`built in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  }
}
// Again, cheaply: something may have taken a port during the build.
await checkPorts();

// ---- a fresh journal ------------------------------------------------------------------------------
fs.mkdirSync(dataDir, { recursive: true });
for (const f of [journal, `${journal}-wal`, `${journal}-shm`]) fs.rmSync(f, { force: true });
const migrate = spawnSync(process.execPath, ["--import", "tsx", "scripts/journal.ts", "migrate", journal], { cwd: root, stdio: "inherit" });
if (migrate.status !== 0) fail("could not create the demo journal", 1);

// ---- a fresh operator account to sign in with ---------------------------------------------------
fs.rmSync(accountsDir, { recursive: true, force: true });
const password = randomBytes(9).toString("hex");
const addAccount = spawnSync(process.execPath, ["--import", "tsx", "scripts/accounts.ts", "add", "demo", "--role", "operator", "--password-stdin"], {
  cwd: root,
  // On standard input, never in an argument where ps would show it.
  input: `${password}\n`,
  stdio: ["pipe", "inherit", "inherit"],
  env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accounts },
});
if (addAccount.status !== 0) fail("could not create the demo operator account", 1);

// ---- the bots and the console, each in its own process group ---------------------------------------
function start(name, command, args, env) {
  const child = spawn(command, args, {
    cwd: root,
    // Its own process group: a terminal's Ctrl-C reaches only this launcher, which stops each group
    // as a whole (Next's workers included) in the right order.
    detached: true,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = (stream, out) => {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
    stream.on("end", () => rest && out.write(`[${name}] ${rest}\n`));
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  const entry = { name, child, exited: new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))) };
  child.once("exit", (code, signal) => {
    if (!stopping) {
      console.error(`demo: ${name} stopped unexpectedly (${signal ?? `exit code ${code}`}); stopping the demo`);
      void shutdown(1);
    }
  });
  children.push(entry);
  say(`${name} started (process group ${child.pid})`);
  return entry;
}

const groupAlive = (pid) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

const signalGroup = (pid, signal) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  if (building) {
    // Interrupted while building: end the build; nothing has been erased yet.
    say("stopping the build; the previous run's files are untouched");
    building.kill("SIGTERM");
    return;
  }
  say("stopping: the bots finish their current write, then the console stops");
  const bots = children.find((c) => c.name === "bots");
  const console_ = children.find((c) => c.name === "console");
  // The bots first, so their last write lands while nothing else is being torn down.
  if (bots) {
    signalGroup(bots.child.pid, "SIGTERM");
    await Promise.race([bots.exited, sleep(10_000)]);
  }
  if (console_) signalGroup(console_.child.pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (children.some((c) => groupAlive(c.child.pid)) && Date.now() < deadline) await sleep(100);
  for (const c of children) {
    if (groupAlive(c.child.pid)) {
      say(`${c.name} did not stop in time: killing its process group`);
      signalGroup(c.child.pid, "SIGKILL");
    }
  }
  while (children.some((c) => groupAlive(c.child.pid))) await sleep(50);
  say(`stopped. The journal is at ${journal} until the next npm run demo, which starts a fresh one: copy it to keep it`);
  process.exit(code);
}

// The gateway's token: a fresh one each run.
const venueToken = randomBytes(24).toString("base64url");
const botArgs = [
  "--import",
  "tsx",
  "scripts/demo-bots.ts",
  "--journal",
  journal,
  "--speed",
  String(speed),
  "--seed",
  values.seed,
  "--venue-port",
  String(venuePort),
];
if (values["on-call"]) botArgs.push("--on-call");
const bots = start("bots", process.execPath, botArgs, { DRIFTWATCH_VENUE_TOKEN: venueToken });
// The demo's bots beat and reconcile every 2.5 s (divided by --speed), not every 15 s or so as a
// real bot might: the console's defaults (a heartbeat stale after 60 s, a reconciliation after 120 s)
// would keep a stopped demo bot "running" for a minute. Eight and sixteen of its cycles, unless set.
const staleMs = (name, cycles) => process.env[name] ?? String(Math.max(5_000, Math.round((cycles * 2_500) / speed)));
const heartbeatStaleMs = staleMs("DRIFTWATCH_HEARTBEAT_STALE_MS", 8);
const reconciliationStaleMs = staleMs("DRIFTWATCH_RECONCILIATION_STALE_MS", 16);
start("console", bin("next"), [serverMode, "-H", "127.0.0.1", "-p", String(port)], {
  DRIFTWATCH_HEARTBEAT_STALE_MS: heartbeatStaleMs,
  DRIFTWATCH_RECONCILIATION_STALE_MS: reconciliationStaleMs,
  DRIFTWATCH_JOURNAL: journal,
  DRIFTWATCH_ACCOUNTS_DB: accounts,
  DRIFTWATCH_VENUE_URL: `http://127.0.0.1:${venuePort}`,
  DRIFTWATCH_VENUE_TOKEN: venueToken,
});

for (let i = 0; !stopping; i++) {
  try {
    const res = await fetch(url, { redirect: "manual" });
    if (res.status > 0) break;
  } catch {
    // not listening yet
  }
  if (i === 300) {
    console.error(`demo: the console did not answer on ${url} within a minute`);
    await shutdown(1);
  }
  await sleep(200);
}
if (!stopping) {
  say(`open ${url}  (journal ${journal}, speed ${speed}; Ctrl-C stops everything)`);
  say(`to clear a halt or resolve an order, sign in as "demo" with password ${password} (a new one every run)`);
  say(
    `a bot is STALE once its heartbeat is ${Number(heartbeatStaleMs) / 1000} s old or its reconciliation ${Number(reconciliationStaleMs) / 1000} s ` +
      `(DRIFTWATCH_HEARTBEAT_STALE_MS, DRIFTWATCH_RECONCILIATION_STALE_MS); to see it, pause the bots: kill -STOP -${bots.child.pid}, then kill -CONT -${bots.child.pid}`,
  );
  // The CLIs default to ./data/journal.db and ./data/accounts.db: name the demo's own files.
  const rel = (f) => {
    const r = path.relative(process.cwd(), f);
    return r === "" || r.startsWith("..") ? f : `./${r}`;
  };
  say(`to check its journal:     DRIFTWATCH_JOURNAL=${rel(journal)} npm run journal -- check`);
  say(`to list its accounts:     DRIFTWATCH_ACCOUNTS_DB=${rel(accounts)} npm run accounts -- list`);
  say(`to verify its audit log:  DRIFTWATCH_JOURNAL=${rel(journal)} DRIFTWATCH_ACCOUNTS_DB=${rel(accounts)} npm run audit -- verify --expect-head`);
}
