"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { overviewQuery } from "@/lib/query-options/overview";

/** While the journal cannot be read, keep asking; reload the page the moment it can. */
export function RetryWhenReadable() {
  const router = useRouter();
  const { isSuccess } = useQuery({ ...overviewQuery(), refetchInterval: 2_000 });
  useEffect(() => {
    if (isSuccess) router.refresh();
  }, [isSuccess, router]);
  return null;
}
