// No "server-only": scripts/demo-bots.ts and the e2e tests serve the gateway outside Next (tsx, Playwright), where that import throws.
/**
 * The venue gateway: the one door through which the console asks an exchange about an order.
 *
 * The console holds no exchange credentials. A small service beside the bots (in the demo, the
 * bots' own process) owns them and answers one question over HTTP on loopback or a private
 * network:
 *
 *   GET /v1/bots/<botId>/orders/<clientOrderId>?symbol=<symbol>[&placedAt=<ISO time>]
 *     200 {"found": <ExchangeOrder>} | 200 {"found": null}   (null: the exchange proves it has none)
 *     502 {"error": "..."}                                    (the lookup itself failed: still unknown)
 *     404 {"error": "unknown bot"}
 *
 * with `Authorization: Bearer <token>` when a token is configured. `placedAt` is when the order was
 * made (the journal's created_at): a real venue's "not found" proves absence only for an order young
 * enough that the venue still keeps it (lib/exchange/ccxt-adapter.ts).
 */
import http from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { ExchangeAdapter, ExchangeOrder, OrderQuery } from "./adapter";

export type LookupAnswer = { kind: "found"; order: ExchangeOrder } | { kind: "absent" } | { kind: "failed"; error: string };

export type GatewayQuery = OrderQuery & { botId: string };

export interface OrderLookup {
  lookup(q: GatewayQuery): Promise<LookupAnswer>;
}

/** The console's side: asks the gateway, and turns every failure into "failed", never "absent". */
export class VenueGatewayClient implements OrderLookup {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | null,
    private readonly timeoutMs = 5_000,
  ) {}

  async lookup(q: GatewayQuery): Promise<LookupAnswer> {
    const url = new URL(
      `v1/bots/${encodeURIComponent(q.botId)}/orders/${encodeURIComponent(q.clientOrderId)}`,
      this.baseUrl.endsWith("/") ? this.baseUrl : `${this.baseUrl}/`,
    );
    url.searchParams.set("symbol", q.symbol);
    if (q.placedAt) url.searchParams.set("placedAt", q.placedAt);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const e = error as Error;
      return {
        kind: "failed",
        error:
          e.name === "TimeoutError" ? `the venue gateway did not answer in ${this.timeoutMs / 1000} s` : `the venue gateway cannot be reached (${e.message})`,
      };
    }
    let body: { found?: ExchangeOrder | null; error?: string };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      return { kind: "failed", error: `the venue gateway answered ${res.status} without JSON` };
    }
    if (res.status === 502) return { kind: "failed", error: `the venue gateway says: ${body.error ?? "no answer from the exchange, and no reason given"}` };
    // The two a new setup meets first, worded with what to change.
    if (res.status === 401)
      return { kind: "failed", error: "the venue gateway refused the console's token (401): DRIFTWATCH_VENUE_TOKEN must be the gateway's own" };
    if (res.status === 404 && body.error === "unknown bot")
      return { kind: "failed", error: `the venue gateway does not serve bot ${q.botId} (404): add it to the gateway's config under its journal bot_id` };
    if (res.status !== 200) return { kind: "failed", error: `the venue gateway answered ${res.status}${body.error ? ` (${body.error})` : ""}` };
    if (body.found === null) return { kind: "absent" };
    if (body.found && typeof body.found === "object" && body.found.clientOrderId === q.clientOrderId) return { kind: "found", order: body.found };
    return { kind: "failed", error: "the venue gateway's answer does not describe this order" };
  }
}

/** The bots' side: serves lookups from their adapters. Returns the server; close it to stop. */
export function serveVenueGateway(opts: {
  /** Per bot id, whatever answers "which order has this id on this symbol" from the venue's side. */
  adapters: ReadonlyMap<string, Pick<ExchangeAdapter, "findOrder">>;
  host: string;
  port: number;
  token: string | null;
  /** One line per request: what was asked and the answer's kind. Never the token, a key or a signature. */
  log?: (line: string) => void;
}): Promise<http.Server> {
  const log = opts.log ?? (() => undefined);
  const expected = opts.token ? Buffer.from(`Bearer ${opts.token}`) : null;
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(body));
    };
    // Whatever the lookup throws outside its own try (a malformed escape in the path) is answered
    // here, instead of becoming an unhandled rejection that would stop the bots' process.
    answer(req, send).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else send(500, { error: `the venue gateway failed: ${error instanceof Error ? error.message : String(error)}` });
    });
  });
  async function answer(req: http.IncomingMessage, send: (status: number, body: unknown) => void): Promise<void> {
    if (expected) {
      const got = Buffer.from(req.headers.authorization ?? "");
      if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
        log(`401 ${req.method ?? "?"} ${new URL(req.url ?? "/", "http://gateway").pathname}: missing or wrong token`);
        return send(401, { error: "missing or wrong token" });
      }
    }
    const url = new URL(req.url ?? "/", "http://gateway");
    const m = /^\/v1\/bots\/([^/]+)\/orders\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "GET" || !m) return send(404, { error: "not found" });
    const botId = decodeURIComponent(m[1]!);
    const adapter = opts.adapters.get(botId);
    if (!adapter) {
      log(`404 unknown bot ${JSON.stringify(botId)}`);
      return send(404, { error: "unknown bot" });
    }
    const symbol = url.searchParams.get("symbol");
    if (!symbol) return send(400, { error: "symbol is required" });
    const clientOrderId = decodeURIComponent(m[2]!);
    try {
      const found = await adapter.findOrder({ symbol, clientOrderId, placedAt: url.searchParams.get("placedAt") ?? undefined });
      log(`${botId} ${clientOrderId} on ${symbol}: ${found ? `found ${found.status}, ${found.filledQty} filled` : "absent"}`);
      send(200, { found });
    } catch (error) {
      log(`${botId} ${clientOrderId} on ${symbol}: lookup failed: ${(error as Error).message}`);
      send(502, { error: `lookup failed: ${(error as Error).message}` });
    }
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}
