import { useEffect, useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { Attachment } from '@wap/contracts';
import { Button, ErrorMessage, StatusMessage, TextAreaField } from '../../../components';
import { ApiError, useApiClient } from '../../../lib/api';
import { useAddComment } from '../api/tasks-api';
import {
  ACCEPT_ATTRIBUTE,
  ALLOWED_KINDS_SENTENCE,
  formatBytes,
  refusalOf,
} from '../upload/attachment-rules';
import { uploadAttachment } from '../upload/upload-attachment';

/** One chosen file on its way to becoming an attachment of the next comment. */
type Upload = {
  key: number;
  name: string;
  size: number;
} & (
  | { state: 'uploading'; fraction: number }
  | { state: 'uploaded'; attachment: Attachment }
  | { state: 'failed'; error: unknown }
  | { state: 'refused'; reason: string }
);

/**
 * Writes a comment. Each chosen file is checked (kind, 10 MB), then uploaded at once with
 * its progress shown (spec endpoint 8); the comment is sent with the uploaded ones.
 */
export function CommentComposer(props: { taskId: string; workspaceId: string }) {
  const [body, setBody] = useState('');
  const [formError, setFormError] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const { uploads, add, remove, clear } = useCommentUploads(props, setAnnouncement);
  const addComment = useAddComment(props.taskId);

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.target.files ?? [])];
    // Cleared, so choosing the same file again (after removing it) is a change too.
    event.target.value = '';
    if (files.length === 0) return;
    setFormError('');
    add(files);
  };

  const attachments = uploads.flatMap((upload) =>
    upload.state === 'uploaded' ? [upload.attachment] : [],
  );
  const uploading = uploads.some((upload) => upload.state === 'uploading');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (uploading) {
      setFormError('Wait until the files have uploaded, or remove them.');
      return;
    }
    if (!body.trim() && attachments.length === 0) {
      setFormError('Write a comment or attach a file.');
      return;
    }
    setFormError('');
    addComment.mutate(
      { body: body.trim(), attachments },
      {
        onSuccess: () => {
          setBody('');
          clear();
          setAnnouncement('');
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate>
      {addComment.isError && (
        <ErrorMessage error={addComment.error} title="The comment was not added." />
      )}
      {addComment.isSuccess && <StatusMessage>Comment added.</StatusMessage>}
      <TextAreaField
        label="Comment"
        value={body}
        maxLength={20_000}
        onChange={(event) => setBody(event.target.value)}
      />
      <FileChooser onChange={choose} />
      {uploads.length > 0 && (
        <ul className="task-uploads" aria-label="Files for this comment">
          {uploads.map((upload) => (
            <UploadItem key={upload.key} upload={upload} onRemove={() => remove(upload.key)} />
          ))}
        </ul>
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {formError && (
        <p className="field__error task-form-error" role="alert">
          {formError}
        </p>
      )}
      <Button type="submit" variant="primary" busy={addComment.isPending}>
        Add comment
      </Button>
    </form>
  );
}

/**
 * The files chosen for the next comment: each is checked, then uploaded at once with its
 * progress; removing one stops its upload, and leaving the page stops them all.
 */
function useCommentUploads(
  target: { taskId: string; workspaceId: string },
  announce: (text: string) => void,
) {
  const api = useApiClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const aborts = useRef(new Map<number, () => void>());
  const nextKey = useRef(0);

  useEffect(() => {
    const running = aborts.current;
    return () => {
      for (const abort of running.values()) abort();
      running.clear();
    };
  }, []);

  const update = (key: number, next: Upload) =>
    setUploads((previous) => previous.map((upload) => (upload.key === key ? next : upload)));

  const start = (file: File): Upload => {
    const key = (nextKey.current += 1);
    const base = { key, name: file.name, size: file.size };
    const reason = refusalOf(file);
    if (reason) return { ...base, state: 'refused', reason };
    const running = uploadAttachment({
      taskId: target.taskId,
      workspaceId: target.workspaceId,
      file,
      onProgress: (fraction) => update(key, { ...base, state: 'uploading', fraction }),
    });
    aborts.current.set(key, running.abort);
    running.result.then(
      (attachment) => {
        aborts.current.delete(key);
        update(key, { ...base, state: 'uploaded', attachment });
        announce(`${file.name} is uploaded and goes with your comment.`);
      },
      (error: unknown) => {
        aborts.current.delete(key);
        if (error instanceof DOMException && error.name === 'AbortError') return;
        update(key, { ...base, state: 'failed', error });
        // The app's one client sends the person to sign in: asking it once more gets the same
        // 401 there.
        if (error instanceof ApiError && error.needsSignIn) void api.get('/me').catch(() => null);
      },
    );
    return { ...base, state: 'uploading', fraction: 0 };
  };

  return {
    uploads,
    add: (files: File[]) => setUploads((previous) => [...previous, ...files.map(start)]),
    remove: (key: number) => {
      aborts.current.get(key)?.();
      aborts.current.delete(key);
      setUploads((previous) => previous.filter((upload) => upload.key !== key));
    },
    clear: () => setUploads([]),
  };
}

/** The file input: several files at once, of the kinds an attachment may be. */
function FileChooser(props: { onChange: (event: ChangeEvent<HTMLInputElement>) => void }) {
  const fileInputId = useId();
  return (
    <div className="field">
      <label className="field__label" htmlFor={fileInputId}>
        Attach files
      </label>
      <p className="field__hint" id={`${fileInputId}-hint`}>
        {ALLOWED_KINDS_SENTENCE} They upload as soon as you choose them.
      </p>
      <input
        id={fileInputId}
        type="file"
        multiple
        accept={ACCEPT_ATTRIBUTE}
        aria-describedby={`${fileInputId}-hint`}
        className="task-file-input"
        onChange={props.onChange}
      />
    </div>
  );
}

function UploadItem(props: { upload: Upload; onRemove: () => void }) {
  const { upload } = props;
  const percent =
    upload.state === 'uploading'
      ? Math.round(upload.fraction * 100)
      : upload.state === 'uploaded'
        ? 100
        : 0;
  return (
    <li className={`task-upload task-upload--${upload.state}`}>
      <div className="task-upload__head">
        <span className="task-upload__name">{upload.name}</span>
        <span className="task-muted">{formatBytes(upload.size)}</span>
        <Button className="task-upload__remove" onClick={props.onRemove}>
          {upload.state === 'uploading' ? 'Cancel' : 'Remove'}
          <span className="visually-hidden"> {upload.name}</span>
        </Button>
      </div>
      {(upload.state === 'uploading' || upload.state === 'uploaded') && (
        <div className="task-upload__progress">
          <progress max={100} value={percent} aria-label={`Upload of ${upload.name}`} />
          <span className="task-muted">
            {upload.state === 'uploaded' ? 'Uploaded' : `Uploading… ${percent}%`}
          </span>
        </div>
      )}
      {upload.state === 'failed' && (
        <>
          <ErrorMessage error={upload.error} title={`${upload.name} was not uploaded.`} />
          {upload.error instanceof ApiError &&
            (upload.error.code === 'UNSUPPORTED_MEDIA_TYPE' ||
              upload.error.code === 'PAYLOAD_TOO_LARGE') && (
              <p className="task-muted">{ALLOWED_KINDS_SENTENCE}</p>
            )}
        </>
      )}
      {upload.state === 'refused' && (
        <p className="task-upload__refusal" role="alert">
          {upload.reason}
        </p>
      )}
    </li>
  );
}
