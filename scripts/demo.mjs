// npm run demo [-- --speed N] [-- --seed S] [-- --on-call]
//
// The console and two demo bots, together, on a fresh journal: ./data/demo.db is recreated and
// migrated, and a fresh accounts file (./data/demo-accounts/) gets one operator, "demo", with a
// new random password printed below the URL. The console is built if the build is missing or older
// than the sources, then the bots (scripts/demo-bots.ts) and the console (next start on 127.0.0.1)
// start, each in its own process group. Ctrl-C or SIGTERM stops both: the bots finish their current
// write and close the journal, the console's whole group is ended, and nothing is left running.
//
// Environment: DRIFTWATCH_DEMO_PORT (default 3000), DRIFTWATCH_DEMO_VENUE_PORT (default the port + 1),
// DRIFTWATCH_DEMO_DIR (default ./data).
// Plain Node on purpose: it must run before anything is built or compiled.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildState } from "../tools/lib/build-state.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => path.join(root, "node_modules/.bin", name);
const say = (line) => console.log(`demo: ${line}`);

const { values } = parseArgs({
  options: {
    speed: { type: "string", default: "1" },
    seed: { type: "string", default: "1" },
    "on-call": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log("usage: npm run demo [-- --speed N] [--seed S] [--on-call]\nenv: DRIFTWATCH_DEMO_PORT (3000), DRIFTWATCH_DEMO_DIR (./data)");
  process.exit(0);
}
const speed = Number(values.speed);
if (!(speed > 0) || !Number.isFinite(speed)) {
  console.error(`demo: --speed must be a number above 0, got ${values.speed}`);
  process.exit(2);
}
const port = Number(process.env.DRIFTWATCH_DEMO_PORT ?? 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`demo: DRIFTWATCH_DEMO_PORT must be a port number, got ${process.env.DRIFTWATCH_DEMO_PORT}`);
  process.exit(2);
}
const dataDir = path.resolve(root, process.env.DRIFTWATCH_DEMO_DIR ?? "data");
const journal = path.join(dataDir, "demo.db");
// A folder of its own: the console keeps its generated session secret beside the accounts file.
const accountsDir = path.join(dataDir, "demo-accounts");
const accounts = path.join(accountsDir, "accounts.db");
const url = `http://127.0.0.1:${port}`;

// ---- a fresh journal ------------------------------------------------------------------------------
fs.mkdirSync(dataDir, { recursive: true });
for (const f of [journal, `${journal}-wal`, `${journal}-shm`]) fs.rmSync(f, { force: true });
const migrate = spawnSync(process.execPath, ["--import", "tsx", "scripts/journal.ts", "migrate", journal], { cwd: root, stdio: "inherit" });
if (migrate.status !== 0) {
  console.error("demo: could not create the demo journal");
  process.exit(1);
}

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
if (addAccount.status !== 0) {
  console.error("demo: could not create the demo operator account");
  process.exit(1);
}

// ---- a build no older than the sources -------------------------------------------------------------
const { builtAt, sourcesAt } = buildState(root);
// DRIFTWATCH_DEMO_SERVER: "start" serves the production build (building it first if needed),
// "dev" the development server. Unset: the build when it is up to date, else the development
// server, which answers in seconds where a first build takes a minute: a fresh clone's demo is up
// quickly, and `npm run build` once makes every later run the production console.
const serverMode = process.env.DRIFTWATCH_DEMO_SERVER ?? (builtAt >= sourcesAt ? "start" : "dev");
if (serverMode !== "start" && serverMode !== "dev") {
  console.error(`demo: DRIFTWATCH_DEMO_SERVER must be "start" or "dev", got ${serverMode}`);
  process.exit(2);
}
if (serverMode === "dev") {
  say("serving the console with the development server (each page compiles on its first visit; run `npm run build` once for the production server)");
} else if (builtAt < sourcesAt) {
  say(builtAt === 0 ? "no build of the console yet: building it (a minute or two, once)" : "the sources changed since the last build: rebuilding the console");
  const build = spawnSync(bin("next"), ["build"], { cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (build.status !== 0) {
    console.error("demo: the console did not build; fix the error above and run npm run demo again");
    process.exit(1);
  }
}

// ---- the bots and the console, each in its own process group ---------------------------------------
const children = [];

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

let stopping = false;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
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
  say(`stopped. The journal is kept at ${journal}`);
  process.exit(code);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A second Ctrl-C while stopping changes nothing: the bots are already finishing their write.
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGHUP", () => void shutdown(0));

// The console asks the bots' simulated venues about an order through the venue gateway, with a
// fresh token each run.
const venuePort = Number(process.env.DRIFTWATCH_DEMO_VENUE_PORT ?? port + 1);
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
start("bots", process.execPath, botArgs, { DRIFTWATCH_VENUE_TOKEN: venueToken });
start("console", bin("next"), [serverMode, "-H", "127.0.0.1", "-p", String(port)], {
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
  // The CLIs default to ./data/journal.db and ./data/accounts.db: name the demo's own files.
  const rel = (f) => path.relative(process.cwd(), f) || f;
  say(`to verify its audit log: DRIFTWATCH_JOURNAL=${rel(journal)} DRIFTWATCH_ACCOUNTS_DB=${rel(accounts)} npm run audit -- verify --expect-head`);
}
