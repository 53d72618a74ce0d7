import { describe, expect, it } from "vitest";
import { liveViewName, parseLiveViewList, parseLiveViewName, type LiveView, MAX_LIVE_VIEWS } from "@/lib/live/view-names";
import { sseParser, type SseItem } from "@/lib/live/sse";

describe("live view names", () => {
  const views: LiveView[] = [
    { kind: "overview" },
    { kind: "doubtful", botId: null },
    { kind: "doubtful", botId: "bot:a,b" },
    { kind: "breakers", botId: null, before: null },
    { kind: "breakers", botId: "bot a", before: null },
    { kind: "breakers", botId: "bot-a", before: 1234 },
    { kind: "bot-clear", botId: "bot/ä" },
    { kind: "symbol", botId: "bot-a", symbol: "BTC/USDT:PERP", ordersLimit: 40 },
  ];

  it("reads back every name it writes, ids with ':' and ',' included", () => {
    for (const view of views) expect(parseLiveViewName(liveViewName(view))).toEqual({ ok: true, value: view });
    const list = parseLiveViewList(views.map(liveViewName).join(","));
    expect(list.ok && list.value.map((v) => v.view)).toEqual(views);
  });

  it("refuses what its JSON route refuses, naming the view", () => {
    const refused = [
      "nope",
      "overview:x",
      "doubtful:",
      "doubtful:%00",
      `doubtful:${"b".repeat(201)}`,
      "doubtful:%E0%A4%A",
      "breakers:a:0",
      "breakers:a:1.5",
      "breakers:a:1:2",
      "bot-clear",
      "symbol:a:AAPL",
      "symbol:a:AAPL:0",
      "symbol:a:AAPL:201",
      "symbol:a::20",
    ];
    for (const name of refused) {
      const r = parseLiveViewName(name);
      expect(r.ok, name).toBe(false);
      if (!r.ok) expect(r.message, name).toContain(JSON.stringify(name).slice(0, 8));
    }
  });

  it("refuses a missing list, a view named twice (in either spelling) and too many views", () => {
    expect(parseLiveViewList(null).ok).toBe(false);
    expect(parseLiveViewList("").ok).toBe(false);
    expect(parseLiveViewList("overview,,doubtful").ok).toBe(false);
    const twice = parseLiveViewList("doubtful:ab,doubtful:a%62");
    expect(twice.ok ? null : twice.message).toMatch(/named twice/);
    const many = Array.from({ length: MAX_LIVE_VIEWS + 1 }, (_, i) => `bot-clear:b${i}`).join(",");
    expect(parseLiveViewList(many).ok).toBe(false);
  });
});

describe("sseParser", () => {
  it("gives events and comments whatever the chunks' boundaries and line endings", () => {
    const text = 'retry: 1000\n\nid: 1\nevent: view\ndata: {"a":1}\n\n: ping\n\nid: 2\r\nevent: view\r\ndata: line one\r\ndata: line two\r\n\r\n: ping\r\r';
    const whole: SseItem[] = [];
    sseParser((i) => whole.push(i))(text);
    expect(whole).toEqual([
      { kind: "event", id: "1", event: "view", data: '{"a":1}' },
      { kind: "comment", text: "ping" },
      { kind: "event", id: "2", event: "view", data: "line one\nline two" },
      { kind: "comment", text: "ping" },
    ]);
    for (let size = 1; size < 8; size++) {
      const items: SseItem[] = [];
      const feed = sseParser((i) => items.push(i));
      for (let at = 0; at < text.length; at += size) feed(text.slice(at, at + size));
      expect(items, `chunks of ${size}`).toEqual(whole);
    }
  });
});
