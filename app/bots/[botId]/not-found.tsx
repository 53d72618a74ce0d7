"use client";
import Link from "next/link";
import { useParams } from "next/navigation";
import { BOT_ID_MAX } from "@/lib/journal/ids";
import { decodePageParam } from "@/lib/url-state/path-ids";

/**
 * /bots/<id> for an id the journal does not have: a 404 (the page calls notFound()), naming the id
 * as the address wrote it, decoded once like the page decodes it.
 */
export default function BotNotFound() {
  const raw = useParams<{ botId?: string }>().botId;
  const botId = typeof raw === "string" ? decodePageParam(raw).slice(0, BOT_ID_MAX) : null;
  return (
    <section className="space-y-2">
      <h1 className="text-xl font-bold">{botId === null ? "No such bot" : `No bot ${botId}`}</h1>
      <p>
        This journal has no bot by that id.{" "}
        <Link href="/" className="underline">
          Back to the bots
        </Link>
        .
      </p>
    </section>
  );
}
