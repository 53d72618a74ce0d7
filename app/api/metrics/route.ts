import type { NextRequest } from "next/server";
import { metricsResponse } from "@/lib/http/metrics";

/** Prometheus's scrape: docs/alerting.md. */
export async function GET(request: NextRequest) {
  return metricsResponse(request.headers.get("authorization"));
}
