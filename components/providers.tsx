"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { tabStream } from "@/lib/live/stream-client";

export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // Live data: a value is never fresh for long, and a failed poll retries on the next tick.
            staleTime: 500,
            retry: false,
            refetchOnWindowFocus: true,
          },
        },
      }),
  );
  // The tab's live stream feeds this cache; the screens' queries poll only while it cannot.
  useEffect(() => tabStream.attach(client), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
