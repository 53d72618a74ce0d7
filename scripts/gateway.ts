/**
 * The venue gateway for real accounts: serves lib/exchange/venue-gateway.ts's protocol from a
 * config of bots, venues and the names of the variables holding their keys
 * (lib/exchange/gateway-config.ts). The console's "Check on exchange" asks it; set
 * DRIFTWATCH_VENUE_URL and DRIFTWATCH_VENUE_TOKEN on the console to match.
 *
 *   npm run gateway -- --config gateway.json           serve (127.0.0.1:8790 unless the config says)
 *   npm run gateway -- --config gateway.json --check   ask each venue once, one line per bot
 *
 * Never prints a key, a secret, the token or a signature: errors are the adapter's redacted words.
 * Exit codes: 0 served until SIGINT/SIGTERM or every check passed; 1 a check failed or the port
 * could not be bound; 2 bad usage or config.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { GatewayConfigError, loadGatewayConfig } from "../lib/exchange/gateway-config";
import { serveVenueGateway } from "../lib/exchange/venue-gateway";

const stamp = () => new Date().toISOString();
const say = (line: string) => console.log(`${stamp()} gateway: ${line}`);

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { config: { type: "string" }, check: { type: "boolean", default: false } } }));
  } catch (error) {
    console.error(`gateway: ${(error as Error).message}\nusage: npm run gateway -- --config FILE [--check]`);
    return 2;
  }
  if (!values.config) {
    console.error("usage: npm run gateway -- --config FILE [--check]");
    return 2;
  }
  let text: string;
  try {
    text = fs.readFileSync(values.config, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "it is a folder" : (error as Error).message;
    console.error(`gateway: cannot read the config ${values.config}: ${why}`);
    return 2;
  }
  let setup;
  try {
    // Scripts hand the environment in; the library reads only the variables the config names.
    setup = loadGatewayConfig(text, process.env);
  } catch (error) {
    if (!(error instanceof GatewayConfigError)) throw error;
    console.error(`gateway: ${values.config} is not a usable config:\n${error.message}`);
    return 2;
  }

  if (values.check) {
    let failed = 0;
    for (const bot of setup.bots) {
      const what = `${bot.botId} ${bot.venue} ${bot.accountType}`;
      try {
        const { serverTime, lagMs } = await bot.adapter.check();
        console.log(
          `${what}: ok, server time ${new Date(serverTime).toISOString()} (this clock ${lagMs >= 0 ? "behind" : "ahead"} by ${Math.abs(lagMs)} ms), key accepted`,
        );
      } catch (error) {
        failed++;
        console.log(`${what}: FAILED ${(error as Error).message}`);
      }
    }
    return failed === 0 ? 0 : 1;
  }

  const server = await serveVenueGateway({
    adapters: new Map(setup.bots.map((b) => [b.botId, b.adapter])),
    host: setup.host,
    port: setup.port,
    token: setup.token,
    log: say,
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : setup.port;
  say(`listening on http://${setup.host}:${port} for ${setup.bots.map((b) => `${b.botId} (${b.venue} ${b.accountType})`).join(", ")}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      say(`${signal}, stopping`);
      server.close(() => resolve());
      server.closeAllConnections();
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`gateway: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
