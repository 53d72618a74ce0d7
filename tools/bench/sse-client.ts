/**
 * A server-sent events client as a browser's EventSource reads a stream (the HTML standard's
 * "event stream interpretation"), over plain node:http: the benchmark and the soak open hundreds
 * or thousands of them in one process instead of as many browsers. No reconnection: a load test
 * wants to see a dropped stream, not hide it.
 */
import http from "node:http";

export interface SseEvent {
  /** The last `id:` seen on the stream so far (EventSource's lastEventId), "" before any. */
  id: string;
  /** `event:`, "message" when the server named none. */
  event: string;
  data: string;
}

/**
 * Feeds the stream's text in any chunking and calls back once per dispatched event and per
 * comment line. Lines end in CRLF, LF or CR; a leading BOM is dropped; a field's value loses one
 * leading space; `data:` lines join with LF; a blank line dispatches, unless no data came.
 */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private lastId = "";
  private started = false;
  /** A CR ended the last chunk: an LF opening the next one belongs to it. */
  private pendingCr = false;

  constructor(
    private readonly onEvent: (e: SseEvent) => void,
    private readonly onComment: (text: string) => void = () => {},
  ) {}

  feed(chunk: string): void {
    let text = chunk;
    if (!this.started) {
      if (text.length === 0) return;
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.pendingCr && text.startsWith("\n")) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (;;) {
      const cr = this.buffer.indexOf("\r", start);
      const lf = this.buffer.indexOf("\n", start);
      if (cr === -1 && lf === -1) break;
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      this.line(this.buffer.slice(start, end));
      if (end === cr && this.buffer.charCodeAt(end + 1) === 10) start = end + 2;
      else {
        start = end + 1;
        if (end === cr && end === this.buffer.length - 1) this.pendingCr = true;
      }
    }
    this.buffer = this.buffer.slice(start);
  }

  private line(line: string): void {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return this.onComment(line.slice(1).replace(/^ /, ""));
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.data.push(value);
    else if (name === "event") this.event = value;
    else if (name === "id" && !value.includes("\0")) this.lastId = value;
    // `retry:` and unknown fields: nothing this client uses.
  }

  private dispatch(): void {
    const event = this.event || "message";
    this.event = "";
    if (this.data.length === 0) return;
    const data = this.data.join("\n");
    this.data = [];
    this.onEvent({ id: this.lastId, event, data });
  }
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
    const parser = new SseParser(opts.onEvent, opts.onComment);
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => parser.feed(chunk));
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
