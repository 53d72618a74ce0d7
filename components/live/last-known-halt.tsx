import { UtcTime } from "@/components/ui/utc-time";
import type { OverviewBot } from "@/lib/queries/overview";

/** What the banner says of a halt it can no longer see: when it was last seen, and why not now. */
export function LastKnownHalt({ bot }: { bot: Pick<OverviewBot, "lastKnownHalt" | "source"> }) {
  if (!bot.lastKnownHalt) return null;
  return (
    <span data-testid="last-known-halt" className="font-normal">
      {" "}
      (halted when its journal was last read, at <UtcTime iso={bot.lastKnownHalt.readAt} />; journal {bot.source ?? "?"} cannot be read now, so nobody can tell
      whether it still is)
    </span>
  );
}
