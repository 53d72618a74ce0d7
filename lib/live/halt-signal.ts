/**
 * What the halt signal (components/live/halt-signal.tsx) needs of the overview, and the part of it
 * the server renders into every page's first HTML: the banner is then there before any script
 * runs, instead of arriving after hydration and pushing the page 100 px down under the reader's
 * eyes (a try-out measured it on /bots/* and /breakers), and a reader without JavaScript sees it.
 */
import type { Overview, OverviewBot } from "../queries/overview";

/** The fields of a bot the banner words. */
export type BannerBot = Pick<OverviewBot, "botId" | "breaker" | "lastKnownHalt" | "source">;

/** The overview as far as the signal reads it. */
export interface HaltSignalData {
  readAt: string;
  bots: readonly BannerBot[];
  alarms: readonly string[];
  /** With several journals, whether each could be read: a bot of one that cannot may be halted, for all anyone can tell. */
  sources?: readonly { ok: boolean }[];
}

/** A journal of several cannot be read: its bots' breakers are hidden, as every one is when the console cannot read. */
export const someJournalUnread = (data: Pick<HaltSignalData, "sources">): boolean => data.sources?.some((s) => !s.ok) ?? false;

/**
 * The bots a HALTED banner names: halted now, or halted when their journal was last read and
 * unreadable since (lib/queries/fleet.ts). A journal that went away never takes a halt off the banner.
 */
export const bannerHalts = <B extends Pick<OverviewBot, "breaker" | "lastKnownHalt">>(bots: readonly B[]): B[] =>
  bots.filter((b) => b.breaker?.halted === true || b.lastKnownHalt !== undefined);

/** What a tab's title starts with: "HALTED · " while a bot is halted, "? · " while the console cannot vouch for one. */
export const TITLE_PREFIX = { halted: "HALTED · ", unknown: "? · " } as const;
/** Any of those prefixes, to take off a title before the signal puts its own on. */
export const ANY_TITLE_PREFIX = /^(HALTED · |\? · )+/;

/**
 * The title's prefix the server's read gives, as the banner and favicon rendered from it say it:
 * so a tab opened in the background, or a page without scripts, is named HALTED from its HTML.
 */
export function startTitlePrefix(start: HaltSignalData | null): string {
  if (start === null) return "";
  return bannerHalts(start.bots).length > 0 ? TITLE_PREFIX.halted : start.alarms.length > 0 ? TITLE_PREFIX.unknown : "";
}

/** The server's first read for the signal: the halted bots' banner fields and the alarms, nothing else (it is in every page's HTML). */
export function haltSignalStart(overview: Pick<Overview, "readAt" | "bots" | "alarms" | "sources">): HaltSignalData {
  return {
    ...(overview.sources ? { sources: overview.sources.map((s) => ({ ok: s.ok })) } : {}),
    readAt: overview.readAt,
    bots: bannerHalts(overview.bots).map(({ botId, breaker, lastKnownHalt, source }) => ({
      botId,
      breaker,
      ...(lastKnownHalt ? { lastKnownHalt } : {}),
      ...(source !== undefined ? { source } : {}),
    })),
    alarms: overview.alarms,
  };
}
