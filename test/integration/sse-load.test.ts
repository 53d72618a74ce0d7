import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeMarker, ViewerFleet } from "@/tools/bench/sse-load";

/**
 * A small server speaking GET /api/live's contract: every view at once on connect, then one event
 * per change, a `: ping` comment between. The load client is tested against it; the console's own
 * route is measured by `npm run bench`.
 */
function liveServer(opts: { refuse?: boolean; pingMs?: number } = {}) {
  const streams = new Set<http.ServerResponse>();
  let n = 0;
  let theirs = 1;
  const view = () =>
    JSON.stringify({ view: "overview", ok: true, data: { lines: [{ botId: "alpha", symbol: "BTC", theirs, drift: theirs === 1 ? "none" : "size_drift" }] } });
  const write = (res: http.ServerResponse, data: string) => res.write(`id: ${++n}\nevent: view\ndata: ${data}\n\n`);
  const server = http.createServer((req, res) => {
    if (opts.refuse) return void res.writeHead(503, { "Content-Type": "application/json" }).end('{"ok":false}');
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform" });
    write(res, view());
    streams.add(res);
    req.on("close", () => streams.delete(res));
  });
  const ping = setInterval(() => streams.forEach((s) => s.write(": ping\n\n")), opts.pingMs ?? 200);
  server.keepAliveTimeout = 0;
  return {
    listen: () =>
      new Promise<string>((r) => server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/live?views=overview`))),
    change: (to: number) => {
      theirs = to;
      const data = view();
      streams.forEach((s) => write(s, data));
    },
    error: () => streams.forEach((s) => write(s, JSON.stringify({ view: "overview", ok: false, error: { code: "journal_missing", message: "gone" } }))),
    silence: () => clearInterval(ping),
    drop: (k: number) => [...streams].slice(0, k).forEach((s) => s.destroy()),
    streams: () => streams.size,
    close: () => {
      clearInterval(ping);
      streams.forEach((s) => s.destroy());
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

async function setUp(clients: number, opts?: Parameters<typeof liveServer>[0]) {
  const server = liveServer(opts);
  const url = await server.listen();
  const fleet = new ViewerFleet({ url, views: ["overview"], marker: probeMarker("alpha", "BTC") });
  cleanup.push(server.close, () => fleet.close());
  await fleet.open(clients);
  await fleet.ready(10_000);
  return { server, fleet };
}

describe("the benchmark's stream viewers", () => {
  it("every one of 300 clients gets the first view and every change, in order of arrival", async () => {
    const { server, fleet } = await setUp(300);
    expect(server.streams()).toBe(300);
    for (const to of [2, 3, 4]) {
      server.change(to);
      expect(await fleet.allHold(`${to}/size_drift`, 10_000)).toBe(300);
    }
    const s = fleet.summary();
    expect(s.live).toBe(300);
    expect(s.ended).toEqual({});
    expect(s.failures).toBe(0);
    for (const m of ["1/none", "2/size_drift", "3/size_drift", "4/size_drift"]) expect(s.arrivals[m]).toHaveLength(300);
    expect(Math.min(...s.arrivals["3/size_drift"]!)).toBeGreaterThanOrEqual(Math.max(...s.arrivals["2/size_drift"]!) - 1_000);
    expect(s.latest).toEqual({ "4/size_drift": 300 });
    expect(s.pings).toBeGreaterThan(0);
  });

  it("counts a refused stream, a dropped one and a view the server could not read, never hiding them", async () => {
    const refused = await setUp(3, { refuse: true });
    expect(refused.fleet.summary()).toMatchObject({ clients: 3, live: 0, ended: { "status 503": 3 } });

    const { server, fleet } = await setUp(10);
    server.drop(4);
    server.error();
    await new Promise((r) => setTimeout(r, 300));
    const s = fleet.summary();
    expect(s.live).toBe(6);
    expect(Object.values(s.ended).reduce((a, b) => a + b, 0)).toBe(4);
    expect(s.failures).toBe(6);
  });

  it("reports the longest silence, including one still running", async () => {
    const { server, fleet } = await setUp(2, { pingMs: 100 });
    await new Promise((r) => setTimeout(r, 400));
    expect(fleet.summary().maxGapMs).toBeLessThan(1_000);
    server.silence();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(fleet.summary().maxGapMs).toBeGreaterThanOrEqual(1_200);
  });
});
