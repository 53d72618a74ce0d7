"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useSyncExternalStore } from "react";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { streamCarries } from "@/lib/live/carried";
import { dataAge } from "@/lib/live/not-current";
import { STALL_MS } from "@/lib/live/stream-client";
import { useJournalProblemShown, useNotCurrentShown } from "@/components/journal/journal-problem-shown";
import { LiveReadError, withFix } from "@/lib/query-options/fetch-api";
import { haltSignalQuery } from "@/lib/query-options/overview";
import { SIGNAL_INTERVAL_MS } from "@/lib/query-options/poll";
import { asSentence, cutAtWord } from "@/lib/text/sentence";
import { WrappingText } from "@/components/ui/wrapping-text";
import { LastKnownHalt } from "./last-known-halt";
import { ANY_TITLE_PREFIX, bannerHalts, someJournalUnread, TITLE_PREFIX, type BannerBot, type HaltSignalData } from "@/lib/live/halt-signal";
import { useChainedPoll } from "./use-chained-poll";
import { useLiveUpdatedAt } from "./use-live-updated-at";
import { useDeskNotifications } from "./use-desk-notifications";
import { useHydrated } from "./use-hydrated";
import { useNow } from "./use-now";

/**
 * A tab must tell a halt at a glance, whichever page it shows and whether or not it is in front:
 * while any bot is halted the title starts "HALTED · ", the favicon turns red and a slim banner
 * names each halted bot with a link to its page; while the console cannot tell (the journal
 * unreadable, the poll failing or stopped, a bot's heartbeat or cycles stale) the title starts
 * "? · ", the favicon shows "?" and the banner says UNKNOWN, never a plain, healthy tab.
 *
 * One home, the root layout, fed by the overview's query (O(bots + symbols)): pushed by the tab's
 * live stream (lib/live/stream-client.ts), whose heartbeat counts as an answer; when neither the
 * stream nor a poll answered for 2 s it polls itself, in a background tab too, on timers chained
 * from each answer, which Chromium does not slow to once a minute as it does a hidden tab's
 * intervals (use-chained-poll.ts);
 * the same answers feed the opt-in desktop notifications (use-desk-notifications.ts). A hidden tab
 * is not by itself unknown: only an answer too old to be current is, by the rule every page applies
 * (lib/live/not-current.ts: the signal kept its own 8 s, so for 3 s a page said "Not updating" under
 * a plain tab). The favicon has one owner,
 * <Favicon/>: changing a <link> React rendered from outside React loses the change when React
 * hydrates or re-renders it (two icons, the healthy one last).
 */
const PLAIN = "/favicon.svg";
const HALTED = "/favicon-halted.svg";
const UNKNOWN = "/favicon-unknown.svg";

/** The icon some signal asked for; null until the live signal first says (the server's start holds till then). */
let wanted: string | null = null;
const listeners = new Set<() => void>();
function want(icon: string) {
  if (icon === wanted) return;
  wanted = icon;
  for (const l of listeners) l();
}
function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

const iconOf = (state: SignalState) => (state === "halted" ? HALTED : state === "unknown" ? UNKNOWN : PLAIN);

export function Favicon({ start }: { start: HaltSignalData | null }) {
  // The server's read decides the first icon (in the HTML, for a tab opened in the background too).
  const first = iconOf(firstSignal(start, usePathname()).state);
  const href = useSyncExternalStore(
    subscribe,
    () => wanted ?? first,
    () => first,
  );
  // React 19 hoists a <link> into <head>, on the server and in the browser.
  return <link rel="icon" type="image/svg+xml" href={href} />;
}

type SignalState = "off" | "waiting" | "halted" | "unknown" | "plain";

/**
 * The signal as the server's read (lib/live/halt-signal.ts) tells it, before any script runs and
 * until the live query first answers: halts and the overview's alarms, nothing the reader's clock
 * decides (so the server's HTML and the browser's first render agree).
 */
function firstSignal(start: HaltSignalData | null, pathname: string) {
  const active = pathname !== "/login";
  const pageBot = botOfPath(pathname);
  const data = active ? start : null;
  const halted = ownFirst(bannerHalts(data?.bots ?? []), (b) => b.botId === pageBot);
  const causes = data ? ownFirst(data.alarms, (a) => pageBot !== null && a.startsWith(`${pageBot}: `)) : [];
  const state: SignalState = !active ? "off" : !data ? "waiting" : halted.length > 0 ? "halted" : causes.length > 0 ? "unknown" : "plain";
  return { state, halted, causes, pageBot };
}

/**
 * The halt signal of the whole console: title, favicon and banner. Rendered once, in the root layout,
 * which reads the journal for it (`start`): the banner is in the page's HTML, so it does not arrive
 * after hydration and push the page down, and a reader without JavaScript sees it. The live query
 * starts only after hydration: a query made while the server renders exists before the overview page
 * puts its own read in the cache, and TanStack Query then hydrates that read only after the page's
 * first render, so the overview's HTML said "No data yet" (a reader without JavaScript saw nothing else).
 */
export function HaltSignal({ start }: { start: HaltSignalData | null }) {
  const pathname = usePathname();
  if (useHydrated()) return <LiveHaltSignal start={start} />;
  const { state, halted, causes, pageBot } = firstSignal(start, pathname);
  return <SignalView state={state} halted={halted} causes={causes} blind={start !== null && someJournalUnread(start)} pathname={pathname} pageBot={pageBot} />;
}

function LiveHaltSignal({ start }: { start: HaltSignalData | null }) {
  const pathname = usePathname();
  // The sign-in page reads nothing: it must not poll, nor alarm a reader who is not signed in yet.
  const active = pathname !== "/login";
  const options = haltSignalQuery();
  const query = useQuery({ ...options, enabled: active });
  // Fed by the tab's live stream while it is healthy (its heartbeat counts as an answer); polls
  // itself only when neither the stream nor the page's own poll answered within the interval.
  // Until the query first answers, the server's read (in the page's HTML) is the data, as old as it
  // is: the last known, kept through a failed first poll as TanStack Query keeps a query's own data.
  const fromStart = query.data === undefined && start !== null;
  const updatedAt = useLiveUpdatedAt(options, fromStart ? Date.parse(start.readAt) : query.dataUpdatedAt, active);
  // Joins a fetch already on its way (the overview page's own poll) rather than cancelling it, and
  // asks nothing when that poll answered within the interval: on the overview, in front, the page's
  // own 1 s poll already keeps the signal fresh, and a second request every 2 s would only add load.
  // While the stream carries the view, it is trusted for as long as it is anywhere (a stream silent
  // for STALL_MS is a failed poll): eight tabs re-rendering a trip on a busy laptop can miss a
  // heartbeat for 2 s, and each then asked /api/overview beside a healthy stream.
  const { refetch } = query;
  const view = typeof options.meta?.liveView === "string" ? options.meta.liveView : undefined;
  useChainedPoll(
    () => (Date.now() - updatedAt < (streamCarries(view) ? STALL_MS : SIGNAL_INTERVAL_MS) ? Promise.resolve() : refetch({ cancelRefetch: false })),
    SIGNAL_INTERVAL_MS,
    active,
  );
  const now = useNow();
  const problemShown = useJournalProblemShown();
  const notCurrentShown = useNotCurrentShown();
  const data = !active ? undefined : fromStart ? start : query.data;
  // On a bot's own pages its halt and its causes come first: behind the others', past the first
  // three, they were behind "1 more on the overview" on the one page about that bot (a try-out).
  const { halted, causes: alarms, pageBot } = firstSignal(data ?? null, pathname);
  const causes: string[] = [];
  if (active && query.error) {
    // The page says the problem and its fix already (its problem box): name it, do not repeat it.
    causes.push(
      problemShown && query.error instanceof LiveReadError && query.error.kind === "journal"
        ? "the journal cannot be read (what is wrong and the fix: below)"
        : `cannot read right now: ${withFix(query.error)}`,
    );
  } else if (active && dataAge(updatedAt, now).notCurrent) {
    causes.push(`no update for ${Math.round((now - updatedAt) / 1000)} s`);
  }
  // The console's own trouble, before the bots' alarms, or a journal it cannot read: it hides breakers.
  const unread = data !== undefined && someJournalUnread(data);
  const blind = causes.length > 0 || unread;
  // The title and the favicon keep it; the banner leaves it to the page's own box when there is one.
  const ownTrouble = causes.length > 0;
  if (notCurrentShown) causes.length = 0;
  causes.push(...alarms);
  // Notifications are for what changed while the tab was open: the live query's answers alone.
  useDeskNotifications(active ? query.data : undefined);
  const state: SignalState = !active
    ? "off"
    : !data && !query.error
      ? "waiting"
      : halted.length > 0
        ? "halted"
        : ownTrouble || causes.length > 0
          ? "unknown"
          : "plain";

  useEffect(() => {
    want(iconOf(state));
    const prefix = state === "halted" ? TITLE_PREFIX.halted : state === "unknown" ? TITLE_PREFIX.unknown : "";
    // The title belongs to Next's metadata, which may arrive (streamed) or change with the page after
    // this runs: keep putting the prefix back on whatever title the page has whenever the head changes.
    const apply = () => {
      const text = prefix + document.title.replace(ANY_TITLE_PREFIX, "");
      if (document.title !== text) document.title = text;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [state]);

  return <SignalView state={state} halted={halted} causes={causes} blind={(blind && !notCurrentShown) || unread} pathname={pathname} pageBot={pageBot} />;
}

function SignalView({
  state,
  halted,
  causes,
  blind = false,
  pathname,
  pageBot,
}: {
  state: SignalState;
  halted: readonly BannerBot[];
  causes: readonly string[];
  /** The console itself cannot read (no answer, or the journal): no breaker can be vouched for. */
  blind?: boolean;
  pathname: string;
  pageBot: string | null;
}) {
  // The overview shows the same, at length, in its own summary and alarm banner.
  // Nothing to say beyond what the page's own box says (its view not current): no banner.
  const banner = (state === "halted" || (state === "unknown" && causes.length > 0)) && pathname !== "/";
  return (
    <div data-testid="halt-signal" data-state={state} className={banner ? "mx-auto max-w-6xl px-4 pt-3" : undefined}>
      {!banner ? null : state === "halted" ? (
        <div data-testid="halt-banner" className="space-y-1">
          <p className="rounded bg-red-700 px-3 py-1 text-sm font-semibold text-white">
            HALTED:{" "}
            {/* One sentence per bot, its cause after a dash: the cause is the journal's own text, which
              may hold brackets of its own, so it is never set in brackets beside the last-read aside. */}
            {halted.slice(0, BOTS_WITH_CAUSE).map((b, i) => (
              <span key={b.botId} data-testid="halted-bot">
                {i > 0 && " "}
                <Link href={`/bots/${encodeURIComponent(b.botId)}`} className="inline-block break-all py-1 font-mono underline">
                  {b.botId}
                </Link>
                <LastKnownHalt bot={b} />{" "}
                <span className="break-words font-normal">
                  — {/* Ids in it (an order id, a URL) break at their own places, never the words around them. */}
                  <WrappingText
                    text={asSentence(
                      haltCauseText({
                        reason: shortCause(b.breaker?.reason ?? b.lastKnownHalt?.reason ?? null, b.botId === pageBot),
                        inSyncSince: b.breaker?.causeInSyncSince ?? null,
                        ordersSettled: b.breaker?.causeOrdersSettled ?? null,
                        changedBy: b.breaker?.changedBy,
                        changedAt: b.breaker?.changedAt ?? b.lastKnownHalt?.since,
                      }),
                    )}
                  />
                </span>
              </span>
            ))}
            {halted.length > BOTS_WITH_CAUSE && (
              // Every halted bot is named on every page; past the first ones, by name alone.
              <span data-testid="halted-more">
                {" "}
                Also halted:{" "}
                {halted.slice(BOTS_WITH_CAUSE).map((b, i) => (
                  <span key={b.botId} data-testid="halted-bot">
                    {i > 0 && ", "}
                    <Link href={`/bots/${encodeURIComponent(b.botId)}`} className="inline-block break-all py-1 font-mono underline">
                      {b.botId}
                    </Link>
                  </span>
                ))}{" "}
                <span className="font-normal">
                  (their causes on their pages and the{" "}
                  <Link href="/" className="underline">
                    overview
                  </Link>
                  ).
                </span>
              </span>
            )}
          </p>
          {/* Its own line: at the end of the red one, after the halts' causes, it went unread (a try-out). */}
          {causes.length > 0 && (
            <p data-testid="halt-banner-not-current" className="rounded bg-amber-700 px-3 py-1 text-sm text-white">
              <span className="font-semibold">Not current:</span> <Causes causes={causes} />
            </p>
          )}
        </div>
      ) : (
        <p data-testid="halt-banner" className="rounded bg-amber-700 px-3 py-1 text-sm font-semibold text-white">
          {/* The console's own trouble (no answer, an unreadable journal) hides every breaker; a bot's
              stale heartbeat hides that bot alone, and the page beside the banner said "not halted"
              for every bot, read from the journal (a try-out). */}
          {blind ? "UNKNOWN: the console cannot tell whether any bot is halted:" : "UNKNOWN: the console cannot vouch for these bots now:"}{" "}
          <span className="font-normal">
            <Causes causes={causes} />
          </span>
          {blind ? ". Treat every bot as possibly halted until this clears." : ". Check that each is running and can write its journal."}
        </p>
      )}
    </div>
  );
}

/**
 * On every page but the overview the banner sits above the page's own content: on a phone, four
 * halted bots with their whole causes filled the first screen (a new user's try-out). The first
 * bots are told with their cause, each cut to a line or two; the others are named alone.
 */
const BOTS_WITH_CAUSE = 3;
const CAUSE_CHARS = 140;
const OWN_CAUSE_CHARS = 60;

/**
 * A halt's recorded reason cut at a word to about CAUSE_CHARS (OWN_CAUSE_CHARS on the bot's own
 * pages, which tell it whole below), said to be cut; whole on the bot's page and the overview. Only the reason: what the console adds after it ("in sync since …",
 * "settled at …: filled") is what the reader most needs now, and is never cut off.
 */
function shortCause(text: string | null, onItsPage: boolean): string | null {
  // On the bot's own pages (its page, its symbols') the whole reason is on the page below, not a
  // link away: the banner keeps to its first words (a phone showed the same long error twice, the
  // first 600 px of the page, before anything else).
  return text === null ? null : onItsPage ? cutAtWord(text, OWN_CAUSE_CHARS, "in full below") : cutAtWord(text, CAUSE_CHARS, "in full on its page");
}

/** Shown on every page: the first causes (the console's own trouble comes first), the rest counted, at length on the overview. */
const CAUSES_SHOWN = 3;

/** The bot a page is about (`/bots/<id>` and the pages under it), or null. */
function botOfPath(pathname: string): string | null {
  const m = /^\/bots\/([^/]+)/.exec(pathname);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

/** The items `first` picks, then the others, each in their own order. */
function ownFirst<T>(items: readonly T[], first: (item: T) => boolean): T[] {
  return [...items.filter(first), ...items.filter((i) => !first(i))];
}

function Causes({ causes }: { causes: readonly string[] }) {
  if (causes.length <= CAUSES_SHOWN) return <>{causes.join("; ")}</>;
  return (
    <>
      {causes.slice(0, CAUSES_SHOWN).join("; ")}; and{" "}
      <Link href="/" className="underline" data-testid="more-causes">
        {causes.length - CAUSES_SHOWN} more on the overview
      </Link>
    </>
  );
}
