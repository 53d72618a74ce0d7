"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { overviewQuery } from "@/lib/query-options/overview";
import { RETRY_EVERY_S } from "./journal-problem";

/**
 * While the journal cannot be read, keep asking; render the page again whenever the journal can be
 * read, until the page itself can (then this is gone with the problem). `source`: with several
 * journals, the one this page needs. The overview answers while any of them can be read, so its
 * answer alone is not the sign: the journal must be among its readable sources. Waiting for any
 * answer refreshed a bot page once, while its journal was still away, and never again (a new
 * user's try-out).
 */
export function RetryWhenReadable({ source }: { source?: string }) {
  const router = useRouter();
  const { isSuccess, data, dataUpdatedAt } = useQuery({ ...overviewQuery(), refetchInterval: RETRY_EVERY_S * 1000 });
  const readable = isSuccess && (source === undefined || data.sources === undefined || data.sources.some((s) => s.name === source && s.ok));
  useEffect(() => {
    if (readable) router.refresh();
  }, [readable, dataUpdatedAt, router]);
  return null;
}
