/**
 * A link or control on its own (not a word inside a sentence) is at least 24 px tall to a finger
 * (WCAG 2.2's minimum target size): padded by 4 px above and below, with the same margin taken
 * back, so the line it sits on keeps its height. A try-out on a phone measured 16 px symbol links
 * and breadcrumbs.
 */
export const TAP_TARGET = "-my-1 inline-block py-1";
