/**
 * A text written by a bot or a person (a halt's reason), closed as one sentence among others: a
 * full stop added, unless it already ends as a sentence does. Banners set one such sentence per
 * bot, so a reason that ends in "." must not read "..".
 */
export function asSentence(text: string): string {
  const trimmed = text.trimEnd();
  if (trimmed === "") return trimmed;
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
