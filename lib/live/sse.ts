/**
 * A reader of a text/event-stream body, for the browser's side of GET /api/live. Not EventSource:
 * EventSource hides comment lines, and the route's heartbeat is a comment (`: ping`) the page must
 * see to tell a live stream from a stalled one; it also hides the answer's status (a 401 or a 400
 * is not a stall). Pure: the caller feeds it text as it arrives.
 */
export type SseItem = { kind: "event"; id: string | null; event: string; data: string } | { kind: "comment"; text: string };

export function sseParser(emit: (item: SseItem) => void): (chunk: string) => void {
  let buffer = "";
  let id: string | null = null;
  let event = "";
  let data: string[] = [];
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) emit({ kind: "event", id, event: event || "message", data: data.join("\n") });
      event = "";
      data = [];
      return;
    }
    if (text.startsWith(":")) return emit({ kind: "comment", text: text.slice(1).trim() });
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id") id = value;
  };
  return (chunk) => {
    buffer += chunk;
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const breakLength = buffer.startsWith("\r\n", end) ? 2 : 1;
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (buffer[end] === "\r" && end === buffer.length - 1) break;
      line(buffer.slice(0, end));
      buffer = buffer.slice(end + breakLength);
    }
  };
}
