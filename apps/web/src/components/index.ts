import './components.css';

export { Button, type ButtonProps } from './button';
export { TextField, type TextFieldProps } from './text-field';
export { TextAreaField, type TextAreaFieldProps } from './text-area-field';
export { SelectField, type SelectFieldProps, type SelectOption } from './select-field';
export { Switch, type SwitchProps } from './switch';
export { RadioGroup, type RadioGroupProps } from './radio-group';
export { ErrorMessage } from './error-message';
export { StatusMessage } from './status-message';
export { LoadingState } from './loading-state';
export { EmptyState } from './empty-state';
export { PageHeader } from './page-header';
export { Panel } from './panel';
export { CopyButton } from './copy-button';
export { ConfirmButton, type ConfirmButtonProps } from './confirm-button';
export { RenamePanel, type RenamePanelProps } from './rename-panel';
export { SecretShownOnce } from './secret-shown-once';
