/**
 * The console's security headers. Plain data and one function: next.config.ts sets the static ones
 * on every response, proxy.ts sets the Content-Security-Policy with a fresh nonce on every page.
 */

/**
 * script-src: only our own files and the inline scripts Next renders with this request's nonce
 * ('strict-dynamic' lets those load the chunks they need). No 'unsafe-inline' for scripts.
 * style-src keeps 'unsafe-inline': React renders style="" attributes (charts, widths), which a
 * nonce cannot cover; injected CSS is a far smaller risk than injected script.
 * 'unsafe-eval' only under `next dev`, where React rebuilds server stacks with eval.
 */
export function contentSecurityPolicy(opts: { nonce: string; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The JSON routes render nothing, so they need no nonce: a fixed policy that allows nothing, set by
 * next.config.ts; the proxy only checks their requests and mints no nonce for them.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export const STATIC_SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
  {
    key: "Permissions-Policy",
    value: "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=(), midi=(), browsing-topics=(), interest-cohort=()",
  },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];
