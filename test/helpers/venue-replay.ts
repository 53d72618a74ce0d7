/**
 * A loopback HTTP server that answers ccxt's requests with recorded venue responses: ccxt signs the
 * request and parses the reply exactly as it would against the venue; only the host is ours. Every
 * request is kept (path, query, headers, body) so a test can read what the venue would have
 * received. A route answers a fixed reply, a function of the request, or "hang" (never answers).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> } | "hang";
export type Route = Reply | ((req: ReceivedRequest) => Reply);

export interface VenueReplay {
  url: string;
  requests: ReceivedRequest[];
  /** Routes by "METHOD /path"; set or replace one at any time. */
  routes: Map<string, Route>;
  /** The requests to one path. */
  to(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function serveVenueReplay(routes: Record<string, Route>): Promise<VenueReplay> {
  const table = new Map(Object.entries(routes));
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://replay");
      const received: ReceivedRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers: req.headers, body };
      requests.push(received);
      const route = table.get(`${received.method} ${received.path}`);
      const reply = typeof route === "function" ? route(received) : route;
      if (reply === "hang") return; // the socket stays open until the client gives up
      if (!reply) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: `no recorded response for ${received.method} ${received.path}` }));
        return;
      }
      const text = reply.text ?? JSON.stringify(reply.json ?? {});
      res.writeHead(reply.status ?? 200, { "content-type": reply.text === undefined ? "application/json" : "text/html", ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    routes: table,
    to: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
