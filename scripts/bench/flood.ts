/**
 * The action flood of issue 18, in a process of its own (run at a low CPU priority, like the
 * pollers: it stands for strangers on other machines): server-action posts of "resolve by hand",
 * alternately anonymous and with a viewer's session cookie, CONCURRENCY at a time for DURATION_MS.
 * Prints one JSON line: requests, errors (non-200 or a failed socket), and how they were answered.
 * Usage: tsx scripts/bench/flood.ts DURATION_MS CONCURRENCY URL ACTION_ID VIEWER_COOKIE
 */
import http from "node:http";

const [duration, concurrency, base, actionId, viewerCookie] = process.argv.slice(2);
if (!duration || !concurrency || !base || !actionId || !viewerCookie) {
  console.error("usage: tsx scripts/bench/flood.ts DURATION_MS CONCURRENCY URL ACTION_ID VIEWER_COOKIE");
  process.exit(2);
}

// The form as React posts it from useActionState: the root field "0", the form's fields under "1_".
const boundary = "----driftwatchBenchFlood";
const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fields = { clientOrderId: "bench-flood", version: "1", status: "filled", note: "x".repeat(900) };
const body = Buffer.from(
  `${Object.entries(fields)
    .map(([k, v]) => part(`1_${k}`, v))
    .join("")}${part("0", '[null,"$K1"]')}--${boundary}--\r\n`,
  "utf8",
);
const { hostname, port } = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
const baseHeaders = {
  "next-action": actionId,
  "content-type": `multipart/form-data; boundary=${boundary}`,
  "content-length": String(body.length),
  origin: base,
  accept: "text/x-component",
};

const answers: Record<string, number> = {};
let requests = 0;
let errors = 0;
function post(cookie: string | null): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(
      { hostname, port, path: "/doubtful", method: "POST", agent, headers: cookie ? { ...baseHeaders, cookie } : baseHeaders },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const kind =
            res.statusCode !== 200
              ? `status ${res.statusCode}`
              : /Too many actions/.test(text)
                ? "limited"
                : /Sign in to act|only operators can act/.test(text)
                  ? "turned away"
                  : "other";
          answers[kind] = (answers[kind] ?? 0) + 1;
          if (res.statusCode !== 200) errors += 1;
          resolve();
        });
        res.on("error", () => ((errors += 1), resolve()));
      },
    );
    req.on("error", () => ((errors += 1), resolve()));
    req.end(body);
  });
}

const end = Date.now() + Number(duration);
await Promise.all(
  Array.from({ length: Number(concurrency) }, async (_, i) => {
    for (let k = i; Date.now() < end; k += 1) {
      requests += 1;
      await post(k % 2 === 0 ? null : viewerCookie);
    }
  }),
);
process.stdout.write(`${JSON.stringify({ requests, errors, answers })}\n`);
process.exit(0);
