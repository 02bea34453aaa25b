export { validateForm, type FieldErrors, type FormValidation } from './validate-form';
