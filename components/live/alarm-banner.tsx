import { asSentence } from "@/lib/text/sentence";
/** The reasons nothing on the page may be read as healthy. Rendered only when there are some. */
export function AlarmBanner({ title, causes, fix }: { title: string; causes: string[]; fix?: string }) {
  if (causes.length === 0) return null;
  return (
    <section
      role="alert"
      data-testid="alarm-banner"
      className="rounded-lg border-2 border-amber-600 bg-amber-50 p-3 text-amber-950 dark:bg-amber-950 dark:text-amber-50"
    >
      <h2 className="font-bold">{title}</h2>
      <ul className="mt-1 list-outside list-disc pl-5 text-sm">
        {causes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      {fix && <p className="mt-1 text-sm">{asSentence(fix)}</p>}
    </section>
  );
}
