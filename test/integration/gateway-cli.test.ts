/**
 * `npm run gateway` as a real child process: config errors name their field, the served protocol
 * needs the bearer token, a lookup goes through CcxtAdapter to (recorded) Bybit V5 responses, and
 * `--check` prints one line per bot. No line the process prints holds a key, a secret, the token
 * or a signature it sent.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VenueGatewayClient } from "@/lib/exchange/venue-gateway";
import { repoRoot, tempDir } from "../helpers/journal";
import { serveVenueReplay, type ReceivedRequest, type VenueReplay } from "../helpers/venue-replay";
import { BYBIT_NOW, bybitBase, bybitOrder, bybitOrderList, bybitPosition } from "../helpers/venues/bybit";
import { binanceBase, binanceError } from "../helpers/venues/binance";
import { okxBase, okxError } from "../helpers/venues/okx";

const tsx = path.join(repoRoot, "node_modules/.bin/tsx");
/** Only PATH and what the test names: no DRIFTWATCH_ setting of the machine leaks in. */
const childEnv = (vars: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "", NODE_ENV: "test", ...vars });
const ENV = {
  ALPHA_BYBIT_KEY: "gwtest-key-Xr7uQ2mA",
  ALPHA_BYBIT_SECRET: "gwtest-secret-Lp4nV9sK1z",
  DRIFTWATCH_VENUE_TOKEN: "gw-token-8fK2pQ7xLm3v",
};
const SECRETS = Object.values(ENV);
const ID = "alpha-3f9c2a71b0d4e58c6a12";

function configFile(config: unknown): string {
  const file = path.join(tempDir("gateway"), "gateway.json");
  fs.writeFileSync(file, typeof config === "string" ? config : JSON.stringify(config));
  return file;
}

const runOnce = (args: string[], env: Record<string, string> = ENV) =>
  spawnSync(tsx, ["scripts/gateway.ts", ...args], { cwd: repoRoot, encoding: "utf8", env: childEnv(env), timeout: 60_000 });

/** As runOnce, without blocking this process: the recorded venue it asks is served from here. */
function run(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(tsx, ["scripts/gateway.ts", ...args], { cwd: repoRoot, env: childEnv(ENV), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    p.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    p.stderr.on("data", (c: Buffer) => (stdout += c.toString()));
    p.once("exit", (status) => resolve({ status, stdout }));
  });
}

/** The gateway's base URL, from its "listening on" line (its output so far is read through `output`). */
function listeningOn(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`gateway exited ${code}: ${output()}`));
    });
  });
}

async function stopGateway(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

describe("npm run gateway: config errors", () => {
  it("names each bad field, and the variables that are not set, then exits 2", () => {
    const r = runOnce([
      "--config",
      configFile({
        bots: {
          alpha: { exchange: "kraken", accountType: "linear", keyEnv: "ALPHA_BYBIT_KEY", secretEnv: "ALPHA_BYBIT_SECRET" },
          beta: { exchange: "okx", accountType: "linear", keyEnv: "K", secretEnv: "S" },
          gamma: { exchange: "binance", accountType: "spot", keyEnv: "K" },
          delta: { exchange: "binance", accountType: "spot", keyEnv: "K", secretEnv: "S" },
        },
      }),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bots\.alpha\.exchange: Invalid option: expected one of "bybit"\|"binance"\|"okx"/);
    expect(r.stderr).toMatch(/bots\.beta\.passphraseEnv: OKX keys come with a passphrase/);
    // A missing field says what to write, not zod's "expected string, received undefined".
    expect(r.stderr).toMatch(/bots\.gamma\.secretEnv: missing: name the environment variable that holds it/);
    // In the same run as the others, not in a second one once they are mended.
    expect(r.stderr).toMatch(/bots\.delta\.symbols: a spot account needs its symbols/);

    const unset = runOnce(
      ["--config", configFile({ bots: { alpha: { exchange: "bybit", accountType: "linear", keyEnv: "NOT_SET_KEY", secretEnv: "ALPHA_BYBIT_SECRET" } } })],
      {
        ALPHA_BYBIT_SECRET: ENV.ALPHA_BYBIT_SECRET,
      },
    );
    expect(unset.status).toBe(2);
    expect(unset.stderr).toMatch(/tokenEnv: environment variable DRIFTWATCH_VENUE_TOKEN is not set/);
    expect(unset.stderr).toMatch(/bots\.alpha\.keyEnv: environment variable NOT_SET_KEY is not set/);
    for (const s of SECRETS) expect(unset.stderr + unset.stdout).not.toContain(s);
  });

  it("refuses a file that is not JSON, and an unknown field", () => {
    expect(runOnce(["--config", configFile("{ bots: ")]).stderr).toMatch(/the config is not JSON/);
    const missing = runOnce(["--config", "/nonexistent/gateway.json"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^gateway: cannot read the config \/nonexistent\/gateway\.json: no such file$/m);
    const extra = runOnce([
      "--config",
      configFile({
        bots: { alpha: { exchange: "bybit", accountType: "linear", keyEnv: "ALPHA_BYBIT_KEY", secretEnv: "ALPHA_BYBIT_SECRET", apiKey: "pasted-here" } },
      }),
    ]);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toMatch(/bots\.alpha: Unrecognized key: "apiKey"/);
  });
});

describe("npm run gateway: serving Bybit through CcxtAdapter", () => {
  let venue: VenueReplay;
  let child: ChildProcess;
  let output = "";
  let base = "";
  let config = "";

  beforeAll(async () => {
    venue = await serveVenueReplay({
      ...bybitBase(),
      "GET /v5/order/realtime": (req: ReceivedRequest) => ({
        json: bybitOrderList(
          req.query.get("orderLinkId") === ID
            ? [bybitOrder({ orderLinkId: ID, orderStatus: "Filled", qty: "0.500", cumExecQty: "0.500", avgPrice: "60002" })]
            : [],
        ),
      }),
      "GET /v5/order/history": { json: bybitOrderList([]) },
      "GET /v5/position/list": {
        json: {
          retCode: 0,
          retMsg: "OK",
          result: { list: [bybitPosition({ side: "Buy", size: "0.5", markPrice: "60100" })], nextPageCursor: "", category: "linear" },
          retExtInfo: {},
          time: BYBIT_NOW,
        },
      },
    });
    config = configFile({
      port: 0,
      bots: {
        alpha: { exchange: "bybit", accountType: "linear", keyEnv: "ALPHA_BYBIT_KEY", secretEnv: "ALPHA_BYBIT_SECRET", baseUrl: venue.url, timeoutMs: 5_000 },
      },
    });
    child = spawn(tsx, ["scripts/gateway.ts", "--config", config], {
      cwd: repoRoot,
      env: childEnv(ENV),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    base = await listeningOn(child, () => output);
  });

  afterAll(async () => {
    await stopGateway(child);
    await venue.close();
  });

  it("binds loopback and answers 401 without the token or with a wrong one", async () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const url = `${base}/v1/bots/alpha/orders/${ID}?symbol=BTCUSDT`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer gw-token-wrong-0000000" } })).status).toBe(401);
  });

  it("answers 404 for a bot it does not serve", async () => {
    const res = await fetch(`${base}/v1/bots/nobody/orders/${ID}?symbol=BTCUSDT`, { headers: { authorization: `Bearer ${ENV.DRIFTWATCH_VENUE_TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "unknown bot" });
  });

  it("looks an order up on Bybit by orderLinkId for the console's client, and proves another absent", async () => {
    const client = new VenueGatewayClient(base, ENV.DRIFTWATCH_VENUE_TOKEN);
    const placedAt = new Date(Date.now() - 60_000).toISOString();
    expect(await client.lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: ID, placedAt })).toMatchObject({
      kind: "found",
      order: { clientOrderId: ID, status: "filled", filledQty: 0.5 },
    });
    expect(await client.lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "alpha-00000000000000000000", placedAt })).toEqual({ kind: "absent" });
    // Without the order's time, an empty answer proves nothing.
    const unsure = await client.lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "alpha-00000000000000000000" });
    expect(unsure.kind).toBe("failed");
    expect(venue.to("/v5/order/realtime").map((r) => r.query.get("orderLinkId"))).toContain(ID);
  });

  it("--check prints one line per bot: server time and an authenticated read", async () => {
    const check = await run(["--config", config, "--check"]);
    output += check.stdout;
    const lines = check.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^alpha bybit linear: ok, server time 2026-08-10T12:00:00\.000Z .* key accepted$/);
    expect(check.status).toBe(0);
    expect(venue.to("/v5/market/time").length).toBeGreaterThan(0);
    expect(venue.to("/v5/position/list").length).toBeGreaterThan(0);
  });

  it("never prints a key, a secret, the token or a signature it sent", async () => {
    // Let the last log lines arrive.
    await new Promise((r) => setTimeout(r, 200));
    expect(output).toMatch(/alpha alpha-3f9c2a71b0d4e58c6a12 on BTCUSDT: found filled/);
    expect(output).toMatch(/401 GET \/v1\/bots\/alpha\/orders/);
    const signatures = venue.requests.map((r) => r.headers["x-bapi-sign"]).filter((s): s is string => typeof s === "string");
    expect(signatures.length).toBeGreaterThan(0);
    for (const s of [...SECRETS, ...signatures, "gw-token-wrong-0000000"]) expect(output).not.toContain(s);
  });
});

describe("npm run gateway: Binance and OKX, and what it prints when they fail", () => {
  const env = {
    GAMMA_BINANCE_KEY: "gwtest-binance-key-Qe5rT8",
    GAMMA_BINANCE_SECRET: "gwtest-binance-secret-Wm2kD6",
    BETA_OKX_KEY: "gwtest-okx-key-Fz9nB3",
    BETA_OKX_SECRET: "gwtest-okx-secret-Hy4cJ7",
    BETA_OKX_PASSPHRASE: "gwtest-okx-passphrase-Vt1",
    DRIFTWATCH_VENUE_TOKEN: "gw-token-3Rk8sW1qZp6n",
  };
  const GAMMA = "gamma-9e3a1c7b5d2f40e86b13";
  const BETA = "beta0d4f2a6c8e1b3957a2c4";
  let binance: VenueReplay;
  let okx: VenueReplay;
  let child: ChildProcess;
  let output = "";
  let base = "";
  let config = "";

  beforeAll(async () => {
    // Binance answers -2013 for one id and never for the other: ccxt's timeout message quotes the
    // signed URL, signature and all. OKX refuses every signature (50113).
    binance = await serveVenueReplay({
      ...binanceBase(),
      "GET /api/v3/order": (req) => (req.query.get("origClientOrderId") === GAMMA ? "hang" : binanceError(-2013, "Order does not exist.")),
      "GET /api/v3/account": { status: 401, json: { code: -2015, msg: "Invalid API-key, IP, or permissions for action." } },
    });
    okx = await serveVenueReplay({
      ...okxBase(),
      "GET /api/v5/trade/order": { status: 401, json: okxError("50113", "Invalid Sign") },
      "GET /api/v5/account/positions": { status: 401, json: okxError("50113", "Invalid Sign") },
    });
    config = configFile({
      port: 0,
      bots: {
        gamma: {
          exchange: "binance",
          accountType: "spot",
          symbols: ["BTCUSDT"],
          keyEnv: "GAMMA_BINANCE_KEY",
          secretEnv: "GAMMA_BINANCE_SECRET",
          baseUrl: binance.url,
          timeoutMs: 500,
        },
        beta: {
          exchange: "okx",
          accountType: "linear",
          keyEnv: "BETA_OKX_KEY",
          secretEnv: "BETA_OKX_SECRET",
          passphraseEnv: "BETA_OKX_PASSPHRASE",
          baseUrl: okx.url,
          timeoutMs: 5_000,
        },
      },
    });
    child = spawn(tsx, ["scripts/gateway.ts", "--config", config], { cwd: repoRoot, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    base = await listeningOn(child, () => output);
  });

  afterAll(async () => {
    await stopGateway(child);
    await binance.close();
    await okx.close();
  });

  it("asks Binance by origClientOrderId and OKX by clOrdId; a timeout and a refused signature are failed, -2013 young is absent", async () => {
    const client = new VenueGatewayClient(base, env.DRIFTWATCH_VENUE_TOKEN);
    const placedAt = new Date(Date.now() - 60_000).toISOString();
    const slow = await client.lookup({ botId: "gamma", symbol: "BTCUSDT", clientOrderId: GAMMA, placedAt });
    expect(slow).toMatchObject({ kind: "failed" });
    expect(await client.lookup({ botId: "gamma", symbol: "BTCUSDT", clientOrderId: "gamma-00000000000000000000", placedAt })).toEqual({ kind: "absent" });
    const refused = await client.lookup({ botId: "beta", symbol: "BTC-USDT-SWAP", clientOrderId: BETA, placedAt });
    expect(refused).toMatchObject({ kind: "failed" });
    expect(binance.to("/api/v3/order").map((r) => r.query.get("origClientOrderId"))).toContain(GAMMA);
    expect(okx.to("/api/v5/trade/order").map((r) => r.query.get("clOrdId"))).toContain(BETA);
  });

  it("--check prints one FAILED line per bot, saying which read failed and why", async () => {
    const check = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const p = spawn(tsx, ["scripts/gateway.ts", "--config", config, "--check"], { cwd: repoRoot, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      p.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      p.stderr.on("data", (c: Buffer) => (stdout += c.toString()));
      p.once("exit", (status) => resolve({ status, stdout }));
    });
    output += check.stdout;
    expect(check.status).toBe(1);
    const lines = check.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^gamma binance spot: FAILED authenticated read: refused the key or its signature \(.*-2015/);
    expect(lines[1]).toMatch(/^beta okx linear: FAILED authenticated read: refused the key or its signature \(.*50113/);
  });

  it("never prints a key, a secret, the passphrase, the token or a signature it sent, though ccxt's timeout message quotes the signed URL (its query is dropped)", async () => {
    await new Promise((r) => setTimeout(r, 200));
    expect(output).toMatch(
      /gamma gamma-9e3a1c7b5d2f40e86b13 on BTCUSDT: lookup failed: .*no answer in 0\.5 s \(binance GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/order request timed out/,
    );
    expect(output).toMatch(/beta beta0d4f2a6c8e1b3957a2c4 on BTC-USDT-SWAP: lookup failed: .*refused the key or its signature/);
    const signatures = [
      ...binance.requests.map((r) => r.query.get("signature")).filter((s): s is string => !!s),
      ...okx.requests.map((r) => r.headers["ok-access-sign"]).filter((s): s is string => typeof s === "string"),
    ];
    expect(signatures.length).toBeGreaterThanOrEqual(4);
    for (const s of [...Object.values(env), ...signatures]) expect(output).not.toContain(s);
  });
});
