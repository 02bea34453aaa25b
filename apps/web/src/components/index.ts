import './components.css';

export { Button } from './button';
export { TextField } from './text-field';
export { TextAreaField } from './text-area-field';
export { SelectField, type SelectOption } from './select-field';
export { Switch } from './switch';
export { RadioGroup } from './radio-group';
export { ErrorMessage } from './error-message';
export { StatusMessage } from './status-message';
export { LoadingState } from './loading-state';
export { EmptyState } from './empty-state';
export { PagedRecordList } from './paged-record-list';
export { PageHeader } from './page-header';
export { Panel } from './panel';
export { CopyButton } from './copy-button';
export { ConfirmButton } from './confirm-button';
export { RenamePanel } from './rename-panel';
export { SecretShownOnce } from './secret-shown-once';
