import { useState, type FormEvent } from 'react';
import type { Attachment, TaskComment } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  EmptyState,
  ErrorMessage,
  LoadingState,
  TextAreaField,
} from '../../../components';
import { useAuthors } from '../../workspace';
import { useComments, useDeleteComment, useEditComment } from '../api/tasks-api';
import { formatBytes } from '../upload/attachment-rules';

const timeFormat: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/**
 * The task's comments, oldest first, each with its author, its attachments as download links,
 * and Edit (its author) and Delete (its author or an owner).
 */
export function CommentList(props: { taskId: string; workspaceId: string }) {
  const comments = useComments(props.taskId);
  const authors = useAuthors(props.workspaceId);
  const deleteComment = useDeleteComment(props.taskId);
  const [editing, setEditing] = useState<string | null>(null);
  if (comments.isPending) return <LoadingState label="Loading the comments…" />;
  if (comments.isError) return <ErrorMessage error={comments.error} />;
  if (comments.data.comments.length === 0) {
    return (
      <EmptyState title="No comments yet">
        <p>Start the discussion below; attach the files that go with it.</p>
      </EmptyState>
    );
  }
  return (
    <>
      {deleteComment.isError && (
        <ErrorMessage error={deleteComment.error} title="Comment not deleted" />
      )}
      <ol className="task-comments">
        {comments.data.comments.map((comment) => {
          const label = new Date(comment.created_at).toLocaleString(undefined, timeFormat);
          const author = authors.nameOf(comment.created_by);
          const isAuthor = comment.created_by === authors.myId;
          return (
            <li key={comment.id}>
              <article className="task-comment" aria-label={`Comment by ${author}, ${label}`}>
                <CommentMeta comment={comment} author={author} label={label} />
                {editing === comment.id ? (
                  <CommentEditor
                    taskId={props.taskId}
                    comment={comment}
                    onDone={() => setEditing(null)}
                  />
                ) : (
                  comment.body && <p className="task-comment__body">{comment.body}</p>
                )}
                {comment.attachments.length > 0 && (
                  <ul className="task-attachments" aria-label="Attachments">
                    {comment.attachments.map((attachment) => (
                      <li key={attachment.url}>
                        <AttachmentLink attachment={attachment} />
                      </li>
                    ))}
                  </ul>
                )}
                {editing !== comment.id && (isAuthor || authors.isOwner) && (
                  <div className="button-row">
                    {isAuthor && (
                      <Button
                        aria-label={`Edit your comment of ${label}`}
                        onClick={() => setEditing(comment.id)}
                      >
                        Edit
                      </Button>
                    )}
                    <ConfirmButton
                      label="Delete"
                      action={`Delete the comment by ${author} of ${label}`}
                      busy={deleteComment.isPending && deleteComment.variables === comment.id}
                      onConfirm={() => deleteComment.mutate(comment.id)}
                    />
                  </div>
                )}
              </article>
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** Who wrote the comment and when, and when it was last edited. */
function CommentMeta(props: { comment: TaskComment; author: string; label: string }) {
  const { comment, author, label } = props;
  return (
    <p className="task-comment__meta">
      <span className="task-comment__author">{author}</span>{' '}
      <time dateTime={comment.created_at}>{label}</time>
      {comment.edited_at && (
        <span className="task-muted">
          {' '}
          (edited{' '}
          <time dateTime={comment.edited_at}>
            {new Date(comment.edited_at).toLocaleString(undefined, timeFormat)}
          </time>
          )
        </span>
      )}
    </p>
  );
}

function CommentEditor(props: { taskId: string; comment: TaskComment; onDone: () => void }) {
  const [body, setBody] = useState(props.comment.body);
  const [empty, setEmpty] = useState(false);
  const editComment = useEditComment(props.taskId);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const needsText = props.comment.attachments.length === 0 && !body.trim();
    setEmpty(needsText);
    if (!needsText) {
      editComment.mutate({ commentId: props.comment.id, body }, { onSuccess: props.onDone });
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      {editComment.isError && <ErrorMessage error={editComment.error} />}
      <TextAreaField
        label="Comment"
        value={body}
        rows={3}
        autoFocus
        error={empty ? 'Write something, or delete the comment.' : undefined}
        onChange={(event) => setBody(event.target.value)}
      />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={editComment.isPending}>
          Save comment
        </Button>
        <Button onClick={props.onDone}>Cancel</Button>
      </div>
    </form>
  );
}

/** A download of a stored file: the gateway serves it to members only, always as a download. */
function AttachmentLink(props: { attachment: Attachment }) {
  const { url, name, type, size } = props.attachment;
  const details = `${kindOf(type)}, ${formatBytes(size)}`;
  // Only the gateway's own file paths are links; anything else is shown, never followed.
  if (!url.startsWith('/files/task-comments/')) return <span>{name}</span>;
  return (
    <>
      <a href={url} download={name}>
        {name}
      </a>{' '}
      <span className="task-muted">({details})</span>
    </>
  );
}

const KIND_NAMES: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'image/svg+xml': 'SVG image',
  'application/pdf': 'PDF',
  'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.ms-excel': 'Excel workbook',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel workbook',
  'text/plain': 'Text',
  'text/csv': 'CSV',
};

function kindOf(type: string): string {
  return KIND_NAMES[type] ?? type;
}
