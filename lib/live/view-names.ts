/**
 * The names of the live views a page asks GET /api/live for, one per JSON route it would poll
 * otherwise. Pure, shared by the route (which parses them) and the browser (which writes them):
 *
 *   overview                                  GET /api/overview
 *   doubtful  |  doubtful:<botId>             GET /api/doubtful[?bot=<botId>]
 *   breakers  |  breakers:<botId>[:<before>]  GET /api/breakers[?bot=<botId>[&before=<before>]]
 *   bot-clear:<botId>                         GET /api/bots/<botId>/clear
 *   symbol:<botId>:<symbol>:<ordersLimit>     GET /api/bots/<botId>/symbols/<symbol>?orders=<ordersLimit>
 *
 * Each part after the kind is percent-encoded (encodeURIComponent), so a bot id or symbol may hold
 * ":" or ","; the list is comma-separated. A name is checked as its route checks the same input.
 */
import { parsePathId } from "../url-state/path-ids";
import { MAX_ORDERS } from "../url-state/symbol";

export type LiveView =
  | { kind: "overview" }
  | { kind: "doubtful"; botId: string | null }
  | { kind: "breakers"; botId: string | null; before: number | null }
  | { kind: "bot-clear"; botId: string }
  | { kind: "symbol"; botId: string; symbol: string; ordersLimit: number };

/** More than the tabs of one browser show at once; a longer list is a mistake (the browser sends at most this many). */
export const MAX_LIVE_VIEWS = 100;

export function liveViewName(view: LiveView): string {
  const e = encodeURIComponent;
  switch (view.kind) {
    case "overview":
      return "overview";
    case "doubtful":
      return view.botId === null ? "doubtful" : `doubtful:${e(view.botId)}`;
    case "breakers":
      if (view.botId === null) return "breakers";
      return view.before === null ? `breakers:${e(view.botId)}` : `breakers:${e(view.botId)}:${view.before}`;
    case "bot-clear":
      return `bot-clear:${e(view.botId)}`;
    case "symbol":
      return `symbol:${e(view.botId)}:${e(view.symbol)}:${view.ordersLimit}`;
  }
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function decodePart(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

function id(kind: "bot id" | "symbol", raw: string | undefined, name: string): Parsed<string> {
  const decoded = raw === undefined ? undefined : decodePart(raw);
  if (decoded === null) return { ok: false, message: `view ${JSON.stringify(name)}: the ${kind} is not percent-encoded correctly` };
  const parsed = parsePathId(kind, decoded);
  return parsed.ok ? parsed : { ok: false, message: `view ${JSON.stringify(name)}: ${parsed.message}` };
}

function wholeNumber(raw: string | undefined, min: number, max: number): number | null {
  if (raw === undefined || !/^\d{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

export function parseLiveViewName(name: string): Parsed<LiveView> {
  const [kind, ...parts] = name.split(":");
  const count = (min: number, max: number) => parts.length >= min && parts.length <= max;
  const wrong = (shape: string): Parsed<LiveView> => ({ ok: false, message: `view ${JSON.stringify(name)}: expected ${shape}` });
  switch (kind) {
    case "overview":
      return parts.length === 0 ? { ok: true, value: { kind } } : wrong("overview");
    case "doubtful": {
      if (!count(0, 1)) return wrong("doubtful or doubtful:<botId>");
      if (parts.length === 0) return { ok: true, value: { kind, botId: null } };
      const bot = id("bot id", parts[0], name);
      return bot.ok ? { ok: true, value: { kind, botId: bot.value } } : bot;
    }
    case "breakers": {
      if (!count(0, 2)) return wrong("breakers, breakers:<botId> or breakers:<botId>:<before>");
      if (parts.length === 0) return { ok: true, value: { kind, botId: null, before: null } };
      const bot = id("bot id", parts[0], name);
      if (!bot.ok) return bot;
      if (parts.length === 1) return { ok: true, value: { kind, botId: bot.value, before: null } };
      const before = wholeNumber(parts[1], 1, Number.MAX_SAFE_INTEGER);
      return before === null
        ? wrong("breakers:<botId>:<before> with <before> a positive whole number")
        : { ok: true, value: { kind, botId: bot.value, before } };
    }
    case "bot-clear": {
      if (!count(1, 1)) return wrong("bot-clear:<botId>");
      const bot = id("bot id", parts[0], name);
      return bot.ok ? { ok: true, value: { kind, botId: bot.value } } : bot;
    }
    case "symbol": {
      if (!count(3, 3)) return wrong("symbol:<botId>:<symbol>:<ordersLimit>");
      const bot = id("bot id", parts[0], name);
      if (!bot.ok) return bot;
      const symbol = id("symbol", parts[1], name);
      if (!symbol.ok) return symbol;
      const ordersLimit = wholeNumber(parts[2], 1, MAX_ORDERS);
      if (ordersLimit === null) return wrong(`symbol:<botId>:<symbol>:<ordersLimit> with <ordersLimit> a whole number from 1 to ${MAX_ORDERS}`);
      return { ok: true, value: { kind, botId: bot.value, symbol: symbol.value, ordersLimit } };
    }
    default:
      return { ok: false, message: `view ${JSON.stringify(name)}: no such live view (overview, doubtful, breakers, bot-clear:…, symbol:…)` };
  }
}

/** `?views=` as the route receives it: every name valid, none twice, at least one, at most MAX_LIVE_VIEWS. */
export function parseLiveViewList(raw: string | null): Parsed<{ name: string; view: LiveView }[]> {
  if (raw === null || raw.trim() === "") return { ok: false, message: "views is missing: name at least one live view, as ?views=overview" };
  const names = raw.split(",");
  if (names.length > MAX_LIVE_VIEWS) return { ok: false, message: `views names ${names.length} views; at most ${MAX_LIVE_VIEWS} are served on one stream` };
  const out: { name: string; view: LiveView }[] = [];
  for (const given of names) {
    const parsed = parseLiveViewName(given);
    if (!parsed.ok) return parsed;
    // Written back in its one spelling, so `doubtful:a%62` and `doubtful:ab` are the same view.
    const name = liveViewName(parsed.value);
    if (out.some((v) => v.name === name)) return { ok: false, message: `view ${JSON.stringify(given)} is named twice` };
    out.push({ name, view: parsed.value });
  }
  return { ok: true, value: out };
}
