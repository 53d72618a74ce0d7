/**
 * npm run accounts -- <command>
 *
 *   add <name> --role viewer|operator [--password-stdin]   create an account
 *   passwd <name> [--password-stdin]                        set a new password; ends its sessions
 *   role <name> viewer|operator                             change the role; applies at the next request
 *   disable <name> / enable <name>                          disabling ends its sessions for good
 *   list                                                    every account, its role and state
 *
 * The password is asked twice on a terminal, without echo; with --password-stdin it is the first
 * line of standard input (for scripts: never put a password in an argument, where ps shows it).
 * The file is DRIFTWATCH_ACCOUNTS_DB (./data/accounts.db), created by the first add; every other
 * command refuses a missing file (naming the demo's when that is what exists) rather than create one,
 * and so does an add to the default file while only the demo's exists (it names both commands).
 * Exit codes: 0 done, 1 refused (the line says why), 2 wrong usage.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import {
  AccountError,
  checkAccountName,
  checkPassword,
  checkRole,
  createAccount,
  getAccount,
  listAccounts,
  setAccountDisabled,
  setAccountPassword,
  setAccountRole,
  type AccountInfo,
} from "../lib/auth/accounts";
import { AccountsFileError, openAccountsDb } from "../lib/db/accounts-file";
import { env, EnvError } from "../lib/env";
import { demoFileHint, quote, shown } from "./cli-files";

const usage = `usage: npm run accounts -- add <name> --role viewer|operator [--password-stdin]
       npm run accounts -- passwd <name> [--password-stdin]
       npm run accounts -- role <name> viewer|operator
       npm run accounts -- disable <name> | enable <name> | list`;

class UsageError extends Error {}
class MissingFile extends Error {}

async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
  if (line === "") throw new AccountError("weak_password", "no password on standard input (expected one line)");
  return line;
}

/**
 * Lines from the terminal without echo. Keys typed ahead (or a paste of both lines) are kept for
 * the next prompt rather than dropped.
 */
function hiddenLines() {
  const stdin = process.stdin;
  let buffered = "";
  let waiting: { resolve: (line: string) => void; reject: (error: Error) => void } | undefined;
  let current = "";
  const drain = () => {
    while (waiting && buffered.length > 0) {
      const ch = buffered[0]!;
      buffered = buffered.slice(1);
      if (ch === "\r" || ch === "\n") {
        const w = waiting;
        waiting = undefined;
        process.stderr.write("\n");
        w.resolve(current);
        current = "";
      } else if (ch === "\u0003" || ch === "\u0004") {
        const w = waiting;
        waiting = undefined;
        process.stderr.write("\n");
        w.reject(new AccountError("weak_password", "cancelled; nothing was changed"));
      } else if (ch === "\u007f" || ch === "\b") current = current.slice(0, -1);
      else current += ch;
    }
  };
  const onData = (chunk: string) => {
    buffered += chunk;
    drain();
  };
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.on("data", onData);
  stdin.resume();
  return {
    ask(prompt: string): Promise<string> {
      process.stderr.write(prompt);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        drain();
      });
    },
    close() {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
    },
  };
}

async function askPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return checkPassword(await readStdinLine());
  if (!process.stdin.isTTY) throw new UsageError("no terminal to ask for the password on: pipe it in and pass --password-stdin");
  const terminal = hiddenLines();
  try {
    const first = checkPassword(await terminal.ask("New password (at least 12 characters): "));
    const second = await terminal.ask("Same password again: ");
    if (first !== second) throw new AccountError("weak_password", "the two passwords differ; nothing was changed");
    return first;
  } finally {
    terminal.close();
  }
}

const describe = (a: AccountInfo) => `${a.name} (${a.role}${a.disabled ? ", disabled" : ""})`;

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`${what} takes exactly one account name`);
  return checkAccountName(positionals[0]!);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { role: { type: "string" }, "password-stdin": { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === "help") {
    console.log(usage);
    return 0;
  }
  if (!command) throw new UsageError("no command given");
  const config = env();
  const fromStdin = values["password-stdin"];
  // Only add creates the file: listing or changing accounts in a file that is not there would leave
  // an empty accounts file behind (and, during the demo, hide that the demo's is elsewhere).
  const open = () => openAccountsDb(config.accountsDbPath);
  const openExisting = () => {
    if (!fs.existsSync(config.accountsDbPath)) {
      const hint = demoFileHint("accounts", config.accountsDbPath, { script: "accounts", args: argv });
      if (hint) throw new MissingFile(hint);
      throw new AccountsFileError(
        config.accountsDbPath,
        "not found",
        "set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file, or create this one with npm run accounts -- add <name> --role operator",
      );
    }
    return open();
  };

  switch (command) {
    case "add": {
      const name = one(rest, "add");
      if (!values.role) throw new UsageError("add needs --role viewer or --role operator");
      const role = checkRole(values.role);
      // Beside the demo, a newcomer's add meant the demo's accounts: a new ./data/accounts.db the demo
      // never reads made an account that could not sign in. Starting the console's own file is one
      // variable away, and the line says so.
      const hint = demoFileHint("accounts", config.accountsDbPath, { script: "accounts", args: argv });
      if (hint) {
        throw new MissingFile(
          `${hint}; or, to start the console's own accounts file there instead: DRIFTWATCH_ACCOUNTS_DB=${shown(config.accountsDbPath)} npm run accounts -- ${argv.map(quote).join(" ")}`,
        );
      }
      const { db, sqlite } = open();
      try {
        if (getAccount(db, { name }))
          throw new AccountError("exists", `account ${JSON.stringify(name)} already exists (use passwd, role or enable to change it)`);
        const password = await askPassword(fromStdin);
        const account = await createAccount(db, { name, role, password, logN: config.scryptLogN });
        console.log(`added ${describe(account)} to ${config.accountsDbPath}`);
      } finally {
        sqlite.close();
      }
      return 0;
    }
    case "passwd": {
      const name = one(rest, "passwd");
      const { db, sqlite } = openExisting();
      try {
        // Refuse an unknown name before asking for a password nobody will use.
        if (!getAccount(db, { name })) throw new AccountError("not_found", `no account named ${JSON.stringify(name)} (npm run accounts -- list shows them)`);
        const password = await askPassword(fromStdin);
        const account = await setAccountPassword(db, { name, password, logN: config.scryptLogN });
        console.log(`new password for ${describe(account)}; its existing sessions have ended`);
      } finally {
        sqlite.close();
      }
      return 0;
    }
    case "role": {
      if (rest.length !== 2) throw new UsageError("role takes an account name and a role: role <name> viewer|operator");
      const name = checkAccountName(rest[0]!);
      const { db, sqlite } = openExisting();
      try {
        console.log(`${describe(setAccountRole(db, { name, role: rest[1]! }))}: the new role applies from its next request`);
      } finally {
        sqlite.close();
      }
      return 0;
    }
    case "disable":
    case "enable": {
      const name = one(rest, command);
      const { db, sqlite } = openExisting();
      try {
        const account = setAccountDisabled(db, { name, disabled: command === "disable" });
        console.log(
          command === "disable"
            ? `disabled ${account.name}: its sessions have ended`
            : `enabled ${describe(account)}: its owner signs in again (older sessions stay ended)`,
        );
      } finally {
        sqlite.close();
      }
      return 0;
    }
    case "list": {
      if (rest.length > 0) throw new UsageError("list takes no arguments");
      const { db, sqlite } = openExisting();
      try {
        const all = listAccounts(db);
        if (all.length === 0) console.log(`no accounts in ${config.accountsDbPath} yet: npm run accounts -- add <name> --role operator`);
        const width = Math.max(4, ...all.map((a) => a.name.length));
        for (const a of all) {
          console.log(`${a.name.padEnd(width)}  ${a.role.padEnd(8)}  ${a.disabled ? "disabled" : "enabled "}  password set ${a.passwordChangedAt}`);
        }
      } finally {
        sqlite.close();
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // One line, no stack: the reader needs what to fix, not our call graph.
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    console.error(`driftwatch: ${(error as Error).message} (npm run accounts -- help shows the usage)`);
    process.exitCode = 2;
  } else {
    const known = error instanceof AccountError || error instanceof AccountsFileError || error instanceof MissingFile || error instanceof EnvError;
    console.error(`driftwatch: ${known ? "" : "unexpected error: "}${(error as Error).message}`);
    process.exitCode = 1;
  }
}
