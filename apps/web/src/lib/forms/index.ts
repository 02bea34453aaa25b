export { validateForm, type FieldErrors, type FormValidation } from './validate-form';
export { focusFailedSubmissions } from './focus-failed-submit';
