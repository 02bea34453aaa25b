import { useEffect, useRef, useState } from 'react';

/**
 * A field's error for as long as the field holds the value it was found wrong with: changing
 * the value takes the message away, and the next submission of its form decides again. A field
 * outside a form, or without a `value`, shows its error as given.
 */
export function useShownError<Element extends HTMLInputElement | HTMLTextAreaElement>(
  error: string | undefined,
  value: unknown,
) {
  const field = useRef<Element>(null);
  const currentValue = useRef(value);
  useEffect(() => {
    currentValue.current = value;
  });
  const [submittedValue, setSubmittedValue] = useState<{ value: unknown } | null>(null);

  useEffect(() => {
    const form = field.current?.form;
    if (!form) return;
    const remember = () => setSubmittedValue({ value: currentValue.current });
    // Capture: the value is noted before the form's own handler decides the errors.
    form.addEventListener('submit', remember, true);
    return () => form.removeEventListener('submit', remember, true);
  }, []);

  const stillTrue =
    value === undefined || submittedValue === null || Object.is(submittedValue.value, value);
  return { field, shownError: stillTrue ? error : undefined };
}
