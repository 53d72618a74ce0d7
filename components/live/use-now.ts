"use client";
import { useEffect, useState } from "react";

/** The current time, re-rendered every `everyMs`, for ages that must keep counting. */
export function useNow(everyMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}
