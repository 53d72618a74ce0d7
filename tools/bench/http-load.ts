/**
 * The benchmark's HTTP client: keep-alive GETs timed to the last byte, pollers at a fixed rate, and
 * sequential timings. Shared by scripts/bench/run.ts and scripts/bench/pollers.ts (the same pollers
 * in a process of their own).
 */
import http from "node:http";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One GET on a keep-alive socket; latency in ms from the request to the last byte. `body` is the
 * bytes as sent, decoded as UTF-8 (a compressed body is not decompressed: ask without
 * Accept-Encoding for its text); `bytes` their number, and `encoding` the Content-Encoding.
 */
export function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number; body: string; bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    http
      .get(url, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, ms, body: raw.toString("utf8"), bytes: raw.length, encoding: res.headers["content-encoding"] ?? "identity" });
        });
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

export interface PollResult {
  latencies: number[];
  errors: number;
  requests: number;
}

/**
 * `clients` pollers, each asking for `urls` in turn every `intervalMs` (the page polls every
 * second; the benchmark polls twice as often), from a random phase, for `durationMs`.
 */
export async function poll(urls: string[], clients: number, intervalMs: number, durationMs: number): Promise<PollResult> {
  const result: PollResult = { latencies: [], errors: 0, requests: 0 };
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      await sleep(Math.random() * intervalMs);
      let k = i;
      while (Date.now() < end) {
        const next = Date.now() + intervalMs;
        const url = urls[k++ % urls.length] ?? urls[0]!;
        try {
          const r = await get(url);
          result.requests += 1;
          if (r.status === 200) result.latencies.push(r.ms);
          else result.errors += 1;
        } catch {
          result.requests += 1;
          result.errors += 1;
        }
        await sleep(Math.max(0, next - Date.now()));
      }
    }),
  );
  return result;
}

/** Sequential requests, after a few warm-up ones: the latency of one person's click. */
export async function timeRequests(
  url: string,
  times: number,
  warmUps = 3,
  headers: Record<string, string> = {},
): Promise<{ latencies: number[]; last: string; lastBytes: number; lastEncoding: string; errors: number }> {
  for (let i = 0; i < warmUps; i++) await get(url, headers);
  const latencies: number[] = [];
  let last = "";
  let lastBytes = 0;
  let lastEncoding = "identity";
  let errors = 0;
  for (let i = 0; i < times; i++) {
    const r = await get(url, headers);
    if (r.status !== 200) errors += 1;
    latencies.push(r.ms);
    last = r.body;
    lastBytes = r.bytes;
    lastEncoding = r.encoding;
  }
  return { latencies, last, lastBytes, lastEncoding, errors };
}
