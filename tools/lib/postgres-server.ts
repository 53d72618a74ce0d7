/**
 * A throwaway PostgreSQL server from Debian's binaries (`apt-get install postgresql`, done by
 * `npm run setup`): `initdb` into a fresh temporary folder, `pg_ctl start` on a free loopback port
 * with its socket in that folder, and `pg_ctl stop` plus the folder removed afterwards. Nothing of
 * the package's own cluster is used. `initdb` refuses to run as root, so as root (CI) the folder is
 * given to the `postgres` user the package creates and the binaries run through `runuser`.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./console-server";

const run = promisify(execFile);

/** Where the server binaries are: DRIFTWATCH_PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string | null {
  const candidates = process.env.DRIFTWATCH_PG_BIN
    ? [process.env.DRIFTWATCH_PG_BIN]
    : fs.existsSync("/usr/lib/postgresql")
      ? fs
          .readdirSync("/usr/lib/postgresql")
          .filter((v) => /^\d+$/.test(v))
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
  return candidates.find((d) => fs.existsSync(path.join(d, "initdb")) && fs.existsSync(path.join(d, "pg_ctl"))) ?? null;
}

/**
 * A login role that must authenticate: its pg_hba line (for 127.0.0.1) comes before the trust line,
 * and its password is stored hashed the way the method needs (SCRAM verifier or md5 hash).
 */
export interface PostgresUser {
  name: string;
  password: string;
  auth: "scram-sha-256" | "md5" | "password";
  /** Only over TLS (a `hostssl` line, and a `hostnossl … reject` before it): needs the `tls` option. */
  tlsOnly?: boolean;
  /** Only in the clear (a `hostssl … reject` line, then a `hostnossl` one): a server that speaks TLS refuses it there. */
  plainOnly?: boolean;
}

export interface PostgresServer {
  port: number;
  /** A node-postgres connection string for the `postgres` superuser on 127.0.0.1 (trust auth). */
  url: string;
  /** Per user of the `users` option: a connection string with its password, to database `postgres`. */
  userUrls: Record<string, string>;
  dir: string;
  /** How long initdb plus start took, in milliseconds (printed by the tests, never asserted). */
  startMs: number;
  /** Stops the server and keeps its folder, for a test of a server that goes away and comes back (resume). */
  halt: () => Promise<void>;
  /** Starts a halted server again, on the same port. */
  resume: () => Promise<void>;
  /** With the `tls` option: the self-signed certificate the server presents (for 127.0.0.1 and localhost), to verify it by. */
  caFile: string | null;
  /** The server's pg_hba.conf: a test that needs a password prepends its line and reloads. */
  hbaFile: string;
  stop: () => Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost, and its key, made by openssl (valid two days). */
export async function selfSignedCertificate(certFile: string, keyFile: string): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-keyout",
    keyFile,
    "-out",
    certFile,
  ]);
}

/**
 * `tls`: the server also speaks TLS (`ssl=on`), with a self-signed certificate made here by
 * openssl for 127.0.0.1 and localhost; a client verifies it with `caFile`.
 */
export async function startPostgres(opts: { label?: string; users?: PostgresUser[]; tls?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's server binaries are not installed: run npm run setup (it installs Debian's postgresql package)");
  const began = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `driftwatch-${opts.label ?? "postgres"}-`));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await run("chown", ["postgres:postgres", dir]);
  // From inside the folder: the checkout may be where `postgres` cannot enter (a clone under /root).
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { cwd: dir }) : run(path.join(bin, tool), args, { cwd: dir });
  const data = path.join(dir, "data");
  const log = path.join(dir, "log");
  // C collation and UTF-8: text sorts by bytes, as SQLite's does. --no-sync and the settings
  // below trade durability for speed: this server lives for one test file.
  await pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]);
  const users = opts.users ?? [];
  for (const u of users) if (!/^[a-z_][a-z0-9_]*$/.test(u.name)) throw new Error(`user name ${u.name}: lower-case letters, digits and _ only`);
  if (users.some((u) => u.tlsOnly || u.plainOnly) && !opts.tls) throw new Error("a tlsOnly or plainOnly user needs the tls option");
  if (users.length > 0) {
    // The first matching line wins: each such user must authenticate; everyone else stays trusted.
    const hba = path.join(data, "pg_hba.conf");
    const lines = users.map((u) =>
      u.tlsOnly
        ? `hostnossl all ${u.name} 127.0.0.1/32 reject\nhostssl all ${u.name} 127.0.0.1/32 ${u.auth}\n`
        : u.plainOnly
          ? `hostssl all ${u.name} 127.0.0.1/32 reject\nhostnossl all ${u.name} 127.0.0.1/32 ${u.auth}\n`
          : `host all ${u.name} 127.0.0.1/32 ${u.auth}\n`,
    );
    // Written in place, so the file keeps the owner initdb gave it (postgres, when run as root).
    fs.writeFileSync(hba, lines.join("") + fs.readFileSync(hba, "utf8"));
  }
  const caFile = opts.tls ? path.join(dir, "server.crt") : null;
  const tlsSettings: string[] = [];
  if (caFile) {
    const key = path.join(dir, "server.key");
    await selfSignedCertificate(caFile, key);
    // The server refuses a key others can read; it runs as postgres when the tests run as root.
    fs.chmodSync(key, 0o600);
    if (asRoot) await run("chown", ["postgres:postgres", key, caFile]);
    tlsSettings.push("-c ssl=on", `-c ssl_cert_file=${caFile}`, `-c ssl_key_file=${key}`);
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      ...tlsSettings,
    ];
    try {
      await pg("pg_ctl", ["-D", data, "-o", settings.join(" "), "-l", log, "-w", "-t", "60", "start"]);
    } catch (error) {
      // Another process may have taken the port between freePort() and the bind: try another.
      lastError = new Error(`pg_ctl start failed on port ${port}: ${String(error)}\n${fs.existsSync(log) ? fs.readFileSync(log, "utf8") : ""}`);
      continue;
    }
    try {
      for (const u of users) {
        // md5 needs the password stored as an md5 hash; SCRAM and cleartext checks take a SCRAM verifier.
        const encryption = u.auth === "md5" ? "md5" : "scram-sha-256";
        const literal = `'${u.password.replace(/'/g, "''")}'`;
        const sql = `SET password_encryption = '${encryption}'; CREATE ROLE ${u.name} LOGIN SUPERUSER PASSWORD ${literal};`;
        await pg("psql", ["-h", dir, "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", sql]);
      }
    } catch (error) {
      await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const startMs = performance.now() - began;
    let stopped = false;
    return {
      port,
      url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      userUrls: Object.fromEntries(users.map((u) => [u.name, `postgresql://${u.name}:${encodeURIComponent(u.password)}@127.0.0.1:${port}/postgres`])),
      dir,
      startMs,
      hbaFile: path.join(data, "pg_hba.conf"),
      caFile,
      halt: async () => {
        await pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      },
      resume: async () => {
        await pg("pg_ctl", ["-D", data, "-o", settings.join(" "), "-l", log, "-w", "-t", "60", "start"]);
      },
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
