import type { NextConfig } from "next";
import { API_CONTENT_SECURITY_POLICY, STATIC_SECURITY_HEADERS } from "./lib/auth/security-headers";
import { ACTION_BODY_LIMIT_BYTES } from "./lib/http/request-limits";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon: it must stay a runtime require, never bundled.
  serverExternalPackages: ["better-sqlite3"],
  poweredByHeader: false,
  experimental: {
    // Ten times the largest honest form (see the constant); proxy.ts refuses bigger ones with a 413
    // from their Content-Length, since Next itself answers an oversized body with a 500.
    serverActions: { bodySizeLimit: ACTION_BODY_LIMIT_BYTES },
  },
  // The Content-Security-Policy needs a nonce per request, so proxy.ts sets it; these are the same
  // for every response, static files included.
  async headers() {
    return [
      { source: "/:path*", headers: STATIC_SECURITY_HEADERS },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

export default nextConfig;
