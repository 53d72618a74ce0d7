/** For browser tests that run `npm run demo` itself: its process groups, and ending them if a test failed half way. */

export const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The process groups the launcher says it started (the bots, the console). */
export const childGroups = (output: string) => [...output.matchAll(/demo: (?:bots|console) started \(process group (\d+)\)/g)].map((m) => Number(m[1]));

/**
 * Never leaves the demo running: the launcher's own group and each group it started. A launcher
 * killed outright cannot stop its children, which live in groups of their own: those end too.
 */
export function killDemo(launcherPid: number | undefined, output: string): void {
  for (const pgid of [launcherPid, ...childGroups(output)]) {
    if (pgid !== undefined && groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
  }
}
