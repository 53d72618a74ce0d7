/** Whether the production build in .next is at least as new as every source it was built from. */
export function buildState(root: string): { builtAt: number; sourcesAt: number; current: boolean };
