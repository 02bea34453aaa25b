export { validateForm, type FieldErrors } from './validate-form';
export { focusFailedSubmissions } from './focus-failed-submit';
