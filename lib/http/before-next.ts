/**
 * Two kinds of request that never reach proxy.ts, answered on the server's own event before Next
 * sees them (installed once, from instrumentation.ts, in the Node runtime):
 *
 * - TRACE and TRACK: the fetch standard forbids them in a Request, and Next builds one for every
 *   request, so it answered 500 and logged a five-line stack for each, whatever the Host: a
 *   stranger could write the log without limit. Now a 405 that logs nothing.
 * - A WebSocket upgrade (production only: `next dev` keeps its own for hot reload): the console
 *   serves none (its live pages use server-sent events). Next took the upgrade through the proxy,
 *   which logged its 421 for a foreign Host, and then left the socket open with no answer. Now a
 *   400 and the socket closed.
 *
 * Node's http.Server emits "request" and "upgrade"; the hook answers these and hands every other
 * event, and every other request, to the server's own emit unchanged.
 *
 * - A request whose target is not a path (`GET http://evil.example/x/ HTTP/1.1`, the form a client
 *   sends a proxy): a 400 that closes the socket. Next answered it with a 308 whose Location echoed
 *   the foreign URL; the console is no proxy, and browsers never send it that form.
 * - Any request once the console was asked to stop (SIGTERM or SIGINT): a 503 that closes its
 *   connection. `next start` stops listening then, but a connection the browser keeps alive still
 *   reached it: a tab reconnected its live stream there at once, read "live · updated 0 s ago" for
 *   as long as the process lived, and held `next start` (which waits for open responses) up until
 *   it was killed (a try-out: 8 s of "live", then SIGKILL). Requests already in Next finish.
 *
 * And one kind of log line: a client that leaves before sending the body it announced (a
 * Content-Length larger than what it sent, then a closed socket) made Next log `Error: aborted`
 * with its stack, four lines a request for any Host, without limit. Those errors, and only those
 * (the message "aborted" with the code ECONNRESET, as Node's http module makes them), are counted in
 * lines of their own, at most ten a minute (quietClientAborts).
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { API_CONTENT_SECURITY_POLICY, STATIC_SECURITY_HEADERS } from "../auth/security-headers";
import { LimitedLog } from "./rate-window";

const UNFETCHABLE = new Set(["TRACE", "TRACK"]);
const INSTALLED = Symbol.for("driftwatch.beforeNext");

export function methodRefusal(method: string): string {
  return `This console does not answer ${method.slice(0, 20)} requests: only GET, HEAD and POST. Nothing was changed.\n`;
}

export const ABSOLUTE_TARGET_REFUSAL =
  "This console answers requests for its own paths (such as /breakers), not for a whole URL: it is not a proxy. Nothing was changed.\n";

export const UPGRADE_REFUSAL = "This console serves no WebSocket: its live pages use server-sent events over plain HTTP. Nothing was changed.\n";

/** What a request gets while the console stops, in the JSON routes' envelope. */
export const STOPPING_MESSAGE = "The console is stopping: it answers again once it is started.";

export function installBeforeNext(opts: { refuseUpgrades: boolean }): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: boolean };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  let stopping = false;
  // Beside `next start`'s own handlers, which stop listening and wait for what is open.
  process.once("SIGTERM", () => (stopping = true));
  process.once("SIGINT", () => (stopping = true));
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      if (stopping) {
        for (const { key, value } of STATIC_SECURITY_HEADERS) res.setHeader(key, value);
        res.writeHead(503, {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Security-Policy": API_CONTENT_SECURITY_POLICY,
          "Cache-Control": "no-store",
          "Retry-After": "1",
          Connection: "close",
        });
        res.end(JSON.stringify({ ok: false, error: { code: "stopping", message: STOPPING_MESSAGE } }));
        return true;
      }
      if (!req.url?.startsWith("/")) {
        for (const { key, value } of STATIC_SECURITY_HEADERS) res.setHeader(key, value);
        res.writeHead(400, {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Security-Policy": API_CONTENT_SECURITY_POLICY,
          "Cache-Control": "no-store",
          Connection: "close",
        });
        res.end(ABSOLUTE_TARGET_REFUSAL);
        return true;
      }
      if (req.method && UNFETCHABLE.has(req.method)) {
        // The headers every answer of the console carries (next.config.ts), since Next adds none here.
        for (const { key, value } of STATIC_SECURITY_HEADERS) res.setHeader(key, value);
        res.writeHead(405, {
          Allow: "GET, HEAD, POST",
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Security-Policy": API_CONTENT_SECURITY_POLICY,
          "Cache-Control": "no-store",
          Connection: "close",
        });
        res.end(methodRefusal(req.method));
        return true;
      }
    } else if (event === "upgrade" && opts.refuseUpgrades) {
      const socket = args[1] as Duplex;
      const body = Buffer.from(UPGRADE_REFUSAL);
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${UPGRADE_REFUSAL}`,
      );
      socket.on("error", () => {});
      return true;
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof proto.emit;
}

/** An error Node's http module raises when the client closes the socket before the whole body came. */
export function isClientAbort(value: unknown): boolean {
  return value instanceof Error && value.message === "aborted" && (value as NodeJS.ErrnoException).code === "ECONNRESET";
}

const QUIETED = Symbol.for("driftwatch.quietClientAborts");

/**
 * console.error, except that a call whose arguments are a client abort and words alone (Next's
 * `uncaughtException` label) becomes one bounded line. Every other call is passed on unchanged.
 */
export function quietClientAborts(): void {
  const target = console as Console & { [QUIETED]?: boolean };
  if (target[QUIETED]) return;
  target[QUIETED] = true;
  const original = console.error.bind(console);
  const log = new LimitedLog({
    linesPerWindow: 10,
    windowMs: 60_000,
    maxLineChars: 300,
    what: "requests whose client left before sending their body",
    write: (line) => original(line),
  });
  console.error = (...args: unknown[]) => {
    if (args.some(isClientAbort) && args.every((a) => typeof a === "string" || isClientAbort(a))) {
      log.line("driftwatch: a client closed its connection before sending the body it announced (ECONNRESET): nothing was read or changed");
      return;
    }
    original(...args);
  };
}
