/**
 * HTTP for the hardening tests, through node:http: fetch forbids setting Host, and a flood needs
 * keep-alive sockets shared by many requests at once without a cookie jar in the way.
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export const floodAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });

export function send(
  base: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string; agent?: http.Agent },
): Promise<Reply> {
  const { hostname, port } = new URL(base);
  const body = typeof opts.body === "string" ? Buffer.from(opts.body, "utf8") : opts.body;
  const headers: Record<string, string> = { ...opts.headers };
  const declared = Object.keys(headers).some((k) => ["content-length", "transfer-encoding"].includes(k.toLowerCase()));
  if (body !== undefined && !declared) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, path: opts.path, method: opts.method ?? (body ? "POST" : "GET"), headers, agent: opts.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A server action's id in this build, by its exported name. */
export function actionId(root: string, name: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string }>;
  };
  const id = Object.entries(manifest.node).find(([, v]) => v.exportedName === name)?.[0];
  if (!id) throw new Error(`no server action named ${name} in this build: run next build`);
  return id;
}

/**
 * A multipart body as React posts a form action used with useActionState: the root field "0"
 * (the previous state and a reference to the form), the form's fields prefixed "1_".
 */
export function actionForm(fields: Record<string, string>, boundary = "----driftwatchE2E"): { body: Buffer; contentType: string } {
  const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const text =
    Object.entries(fields)
      .map(([k, v]) => part(`1_${k}`, v))
      .join("") +
    part("0", '[null,"$K1"]') +
    `--${boundary}--\r\n`;
  return { body: Buffer.from(text, "utf8"), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Bytes written as they are to a fresh socket, and what comes back until the server closes it or
 * `timeoutMs` passes (`closed` false: the server left the socket open).
 */
export function rawExchange(base: string, request: string, timeoutMs = 5_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString("utf8"), closed });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("end", () => done(true));
    socket.on("close", () => done(true));
    socket.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
