"use client";
import { useQuery } from "@tanstack/react-query";
import { JournalProblemShown } from "@/components/journal/journal-problem-shown";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { botClearQuery } from "@/lib/query-options/bot-clear";

/**
 * What the bot page says of its journal beside its clear panel, from the same query: the journal's
 * notices (it was away, or replaced, lately), said by an open page as soon as its live view says
 * them and gone with them; and that the panel's own banner tells a journal problem with its fix,
 * so the halt banner above does not say it again.
 */
export function BotJournalNotices({ botId }: { botId: string }) {
  const { data, error } = useQuery(botClearQuery(botId));
  // Read before the latest read failed: not shown beside the problem, where it would read as this outage's.
  const notices = error ? [] : (data?.notices ?? []);
  return (
    <>
      <JournalProblemShown error={error} />
      {notices.length > 0 && (
        <div className="mb-4 space-y-2">
          <JournalWarnings warnings={notices} />
        </div>
      )}
    </>
  );
}
