/**
 * The bots' venue gateway (lib/exchange/venue-gateway.ts) on a real loopback port, asked by the
 * console's client and by raw requests a client would never send.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimExchange } from "@/lib/exchange/simulator";
import { serveVenueGateway, VenueGatewayClient } from "@/lib/exchange/venue-gateway";
import { SYMBOLS } from "../helpers/bot";

describe("the venue gateway", () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const sim = new SimExchange({ seed: 7, symbols: SYMBOLS, startAt: new Date("2026-08-10T15:30:00.000Z") });
    server = await serveVenueGateway({ adapters: new Map([["alpha", sim]]), host: "127.0.0.1", port: 0, token: null });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers an order the venue never saw as absent", async () => {
    const answer = await new VenueGatewayClient(base, null).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-never-placed" });
    expect(answer).toEqual({ kind: "absent" });
  });

  it("answers a path with a malformed escape with an error, and keeps serving", async () => {
    // decodeURIComponent throws on "%E0%A4%A"; the handler used to leave that as an unhandled
    // rejection and the request without an answer.
    const res = await fetch(`${base}/v1/bots/%E0%A4%A/orders/x?symbol=BTCUSDT`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error?: string };
    expect(body.error).toMatch(/^the venue gateway failed: URI malformed/);

    const after = await new VenueGatewayClient(base, null).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-never-placed" });
    expect(after).toEqual({ kind: "absent" });
  });
});
