/**
 * A server-sent events client over plain node:http, reading the stream with the pages' own parser
 * (lib/live/sse.ts): the benchmark and the soak open hundreds or thousands of them in one process
 * instead of as many browsers. No reconnection: a load test
 * wants to see a dropped stream, not hide it.
 */
import http from "node:http";
import { sseParser } from "../../lib/live/sse";

interface SseEvent {
  /** The last `id:` seen on the stream so far (EventSource's lastEventId), "" before any. */
  id: string;
  /** `event:`, "message" when the server named none. */
  event: string;
  data: string;
}

export interface StreamHandle {
  close: () => void;
  /** Resolves when the stream ends for any reason, with why ("closed" after close()). */
  ended: Promise<string>;
}

export interface StreamOptions {
  headers?: Record<string, string>;
  onOpen?: (status: number, contentType: string) => void;
  onEvent: (e: SseEvent) => void;
  onComment?: (text: string) => void;
}

/**
 * GET `url` with `Accept: text/event-stream` on a socket of its own, parsing what arrives. A
 * non-200 answer or another content type ends it at once ("status 503", "content-type …").
 */
export function openStream(url: string, opts: StreamOptions): StreamHandle {
  let closed = false;
  let settle: (why: string) => void = () => {};
  const ended = new Promise<string>((resolve) => {
    let done = false;
    settle = (why) => {
      if (done) return;
      done = true;
      resolve(closed ? "closed" : why);
    };
  });
  const req = http.get(url, { agent: false, headers: { Accept: "text/event-stream", "Cache-Control": "no-cache", ...opts.headers } }, (res) => {
    const status = res.statusCode ?? 0;
    const type = String(res.headers["content-type"] ?? "");
    opts.onOpen?.(status, type);
    if (status !== 200 || !type.startsWith("text/event-stream")) {
      res.resume();
      req.destroy();
      return settle(status !== 200 ? `status ${status}` : `content-type ${type}`);
    }
    // The browser's own reader of the stream (lib/live/sse.ts), so the load reads what the pages read.
    const feed = sseParser((item) =>
      item.kind === "event" ? opts.onEvent({ id: item.id ?? "", event: item.event, data: item.data }) : opts.onComment?.(item.text),
    );
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => feed(chunk));
    res.on("end", () => settle("ended by the server"));
    res.on("error", (e) => settle(`error: ${e.message}`));
    res.on("close", () => settle("connection closed"));
  });
  req.on("error", (e) => settle(`error: ${e.message}`));
  return {
    close: () => {
      closed = true;
      req.destroy();
      settle("closed");
    },
    ended,
  };
}
