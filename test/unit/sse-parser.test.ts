import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "@/tools/bench/sse-client";

function parse(chunks: string[]) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const p = new SseParser(
    (e) => events.push(e),
    (c) => comments.push(c),
  );
  for (const c of chunks) p.feed(c);
  return { events, comments };
}

const stream = 'id: 1\nevent: view\ndata: {"view":"overview"}\n\n: ping\n\nid: 2\nevent: view\ndata: line one\ndata: line two\n\n';

describe("the load client's event-stream parser", () => {
  it("reads ids, event names, multi-line data and comments as EventSource does", () => {
    expect(parse([stream])).toEqual({
      events: [
        { id: "1", event: "view", data: '{"view":"overview"}' },
        { id: "2", event: "view", data: "line one\nline two" },
      ],
      comments: ["ping"],
    });
  });

  it("gives the same events whatever the chunking, down to one character at a time and CRLF split across chunks", () => {
    const whole = parse([stream]);
    expect(parse([...stream])).toEqual(whole);
    const crlf = stream.replaceAll("\n", "\r\n");
    expect(parse([crlf])).toEqual(whole);
    expect(parse([...crlf])).toEqual(whole);
    expect(parse([stream.replaceAll("\n", "\r")])).toEqual(whole);
  });

  it("keeps the last id for later events, names unnamed events message, drops a BOM and one leading space only", () => {
    const { events } = parse(["\uFEFFid: 7\ndata:  two spaces\n\ndata:x\n\nid\ndata: after an empty id\n\n"]);
    expect(events).toEqual([
      { id: "7", event: "message", data: " two spaces" },
      { id: "7", event: "message", data: "x" },
      { id: "", event: "message", data: "after an empty id" },
    ]);
  });

  it("dispatches nothing for an event without data, nor for a block cut before its blank line", () => {
    const { events } = parse(["event: view\n\n", "id: 3\ndata: unfinished\n"]);
    expect(events).toEqual([]);
  });
});
