/**
 * After a submission that its form refused, the first field found wrong (or, without one, the
 * form's first alert) is scrolled into view and focused: on a long form the message would
 * otherwise appear far above the button with the focus left on it, as if nothing happened.
 * Installed once for the document; returns its removal.
 */
export function focusFailedSubmissions(document: Document): () => void {
  const afterSubmit = (event: SubmitEvent) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    // The form's handler has set its errors; React shows them before the next frame.
    requestAnimationFrame(() => {
      const wrong =
        form.querySelector<HTMLElement>('[aria-invalid="true"]') ??
        form.querySelector<HTMLElement>('.field__error[role="alert"], p[role="alert"]');
      if (!wrong) return;
      if (wrong.tabIndex < 0 && !wrong.matches('input, select, textarea')) wrong.tabIndex = -1;
      wrong.scrollIntoView({ block: 'center' });
      wrong.focus({ preventScroll: true });
    });
  };
  document.addEventListener('submit', afterSubmit);
  return () => document.removeEventListener('submit', afterSubmit);
}
