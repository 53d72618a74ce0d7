/**
 * GET /api/live?views=<names>: the live views a page shows, pushed as they change (server-sent
 * events), instead of the page polling each JSON route every second.
 *
 * Contract (docs/performance.md, "Live updates"):
 * - `views`: comma-separated names from lib/live/view-names.ts: `overview`, `doubtful`,
 *   `doubtful:<botId>`, `breakers`, `breakers:<botId>`, `breakers:<botId>:<before>`,
 *   `bot-clear:<botId>`, `symbol:<botId>:<symbol>:<ordersLimit>`; each part after the kind
 *   percent-encoded. A missing, unknown or invalid view (or one named twice, or more than 100) is a 400
 *   in the JSON routes' envelope, before any stream starts. Same read gate (proxy.ts) and the same
 *   reader-dependent name masking as the JSON routes.
 * - Limits (lib/live/watcher.ts): a stream that would add views past the 200 the console watches,
 *   or one past its 2,000 streams, is a 503 (`busy`, Retry-After: 5) before it starts; the page
 *   polls meanwhile, as whenever its stream is down.
 * - Answer: `text/event-stream`, `Cache-Control: no-cache, no-transform`, `X-Accel-Buffering: no`.
 *   On connect every requested view is sent at once; then one event per view whose content changed:
 *   `id: <n>`, `event: view`, `data: {"view":…,"ok":true,"data":<the JSON route's data>}` or
 *   `{"view":…,"ok":false,"status":503|500,"error":{"code","message","file","fix"}}` (the JSON route's
 *   status and error, e.g. a locked or deleted journal). Ages and `readAt` alone changing is no change,
 *   and no view words an age, so a journal nobody writes sends no event. A `: ping` comment at least
 *   every second, sent after the watcher looked at the journal: a client treats 3 s of silence as a
 *   failed poll.
 * - Ids are `<epoch>-<n>`. A reconnect for the same views with `Last-Event-ID` (the header, as
 *   EventSource sends it) is sent only the views that changed after that event, or none; an id this
 *   process did not send (a restarted console) gets every view again.
 */
import { NextResponse, type NextRequest } from "next/server";
import { readerSeesNames } from "@/lib/auth/reader";
import { badRequest } from "@/lib/http/journal-route";
import { parseLiveViewList } from "@/lib/live/view-names";
import { consoleWatcher } from "@/lib/live/watcher";

/** Frames a client has not taken yet (it stopped reading): past this the stream is dropped and it reconnects. */
const MAX_QUEUED_FRAMES = 2_000;

/**
 * The watcher hands every stream of a view the same frame, one after the other: encode it once for
 * all of them. Encoding it per stream (30 KB of overview a stream) made a change cost the console
 * ×7–16 more CPU with 100 open overviews than with one (docs/performance.md).
 */
let lastFrame = "";
let lastBytes = new Uint8Array();
const encodeOnce = (frame: string) => {
  if (frame !== lastFrame) {
    lastFrame = frame;
    lastBytes = new TextEncoder().encode(frame);
  }
  return lastBytes;
};

/**
 * The streams open in this process, ended when it is asked to stop: `next start` stops listening on
 * SIGTERM or SIGINT but waits for open responses, and a stream never ends by itself, so one open
 * tab kept a stopped console alive (and saying "live") until the browser closed. Ended, each tab
 * sees its stream drop and reconnects, to the next console once one is up.
 */
const open = ((globalThis as { __driftwatchLiveStreams?: Set<() => void> }).__driftwatchLiveStreams ??= new Set());
const stopping = globalThis as { __driftwatchLiveStop?: true };
if (!stopping.__driftwatchLiveStop) {
  stopping.__driftwatchLiveStop = true;
  const endAll = () => {
    for (const close of [...open]) close();
  };
  process.once("SIGTERM", endAll);
  process.once("SIGINT", endAll);
}

export async function GET(request: NextRequest) {
  const views = parseLiveViewList(request.nextUrl.searchParams.get("views"));
  if (!views.ok) return badRequest(views.message);
  const names = await readerSeesNames();
  // Checked here and subscribed in the stream's start, with no await between: no other stream slips in.
  const refused = consoleWatcher().refusal(views.value, names);
  if (refused) {
    return NextResponse.json(
      { ok: false, error: { code: "busy", message: `Not streamed: ${refused}.` } },
      { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": "5" } },
    );
  }
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | null = null;
  let ended = false;
  let close: (() => void) | null = null;
  const end = () => {
    ended = true;
    if (close) open.delete(close);
    unsubscribe?.();
    unsubscribe = null;
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // EventSource's own reconnect delay, for a client that leaves reconnecting to the browser.
      controller.enqueue(encoder.encode("retry: 1000\n\n"));
      unsubscribe = consoleWatcher().subscribe(
        {
          send(frame) {
            try {
              if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) throw new Error("client stopped reading");
              controller.enqueue(encodeOnce(frame));
            } catch {
              end();
              try {
                controller.close();
              } catch {
                // already closed
              }
            }
          },
        },
        views.value,
        names,
        request.headers.get("last-event-id"),
      );
      close = () => {
        end();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      open.add(close);
      if (ended) end();
      request.signal.addEventListener("abort", end);
    },
    cancel: end,
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
