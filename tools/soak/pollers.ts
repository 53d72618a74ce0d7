/**
 * Clients polling the console's JSON routes, as the live pages do, each about once a second. A
 * response is served when it is a 200 whose body says ok; anything else is an error, a 503 included:
 * during the soak the journal is healthy, so "cannot read the journal" would be a failure.
 *
 * A client waits for its answer (up to a minute, so only a hung console is an error) before it asks
 * again: on a starved machine the rate drops and the latency shows it, rather than a short client
 * timeout turning a slow machine into failed requests.
 */
export interface PollStats {
  requests: number;
  served: number;
  errors: number;
  byStatus: Record<string, number>;
  latenciesMs: number[];
  /** Latencies per route, to tell which read is slow. */
  byRoute: Record<string, number[]>;
  errorSamples: string[];
}

export function soakRoutes(botId: string): string[] {
  const bot = encodeURIComponent(botId);
  return [
    "/api/overview",
    "/api/doubtful",
    "/api/breakers",
    `/api/bots/${bot}/clear`,
    `/api/bots/${bot}/symbols/AAPL`,
    `/api/bots/${bot}/symbols/ETHUSDT/chart?range=1h`,
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `clients` polling loops until `until()` says stop; resolves when every loop has finished its request. */
export async function poll(opts: {
  baseUrl: string;
  routes: string[];
  clients: number;
  intervalMs: number;
  until: () => boolean;
  timeoutMs?: number;
}): Promise<PollStats> {
  const stats: PollStats = { requests: 0, served: 0, errors: 0, byStatus: {}, latenciesMs: [], byRoute: {}, errorSamples: [] };
  const fail = (why: string) => {
    stats.errors++;
    if (stats.errorSamples.length < 5) stats.errorSamples.push(why);
  };
  const client = async (k: number) => {
    // Spread the clients over the interval instead of 50 requests on the same tick.
    await sleep((k * opts.intervalMs) / opts.clients);
    for (let n = k; !opts.until(); n++) {
      const route = opts.routes[n % opts.routes.length]!;
      const started = performance.now();
      stats.requests++;
      try {
        const res = await fetch(opts.baseUrl + route, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
        const body = await res.text();
        const ms = performance.now() - started;
        stats.latenciesMs.push(ms);
        (stats.byRoute[route] ??= []).push(ms);
        stats.byStatus[res.status] = (stats.byStatus[res.status] ?? 0) + 1;
        let ok = false;
        try {
          ok = res.status === 200 && (JSON.parse(body) as { ok?: unknown }).ok === true;
        } catch {
          ok = false;
        }
        if (ok) stats.served++;
        else fail(`${route}: ${res.status} ${body.slice(0, 200)}`);
        await sleep(Math.max(0, opts.intervalMs - ms));
      } catch (error) {
        stats.byStatus.network = (stats.byStatus.network ?? 0) + 1;
        fail(`${route}: ${(error as Error).message}`);
        await sleep(opts.intervalMs);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, (_, k) => client(k)));
  return stats;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
