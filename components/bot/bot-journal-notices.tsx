"use client";
import { useQuery } from "@tanstack/react-query";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { botClearQuery } from "@/lib/query-options/bot-clear";

/**
 * The bot page's journal notices (the journal was away, or replaced, lately), from the same query
 * the clear panel reads: an open page says them as soon as its live view does, and stops with it.
 */
export function BotJournalNotices({ botId }: { botId: string }) {
  const { data } = useQuery(botClearQuery(botId));
  const notices = data?.notices ?? [];
  if (notices.length === 0) return null;
  return (
    <div className="mb-4 space-y-2">
      <JournalWarnings warnings={notices} />
    </div>
  );
}
