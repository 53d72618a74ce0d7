/**
 * Why an action's button is off while the page is not current (lib/live/not-current.ts): what the
 * operator would act on may have changed since it was read. The button comes back by itself once
 * the page updates; what they typed stays.
 */
export function NotCurrentNote({ id, action }: { id: string; action: string }) {
  return (
    <p id={id} role="status" className="text-sm font-semibold text-amber-900 dark:text-amber-200" data-testid="not-current-note">
      Not current: waiting for this page to update before you can {action}.
    </p>
  );
}
