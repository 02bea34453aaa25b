import type { Attachment } from '@wap/contracts';
import { EmptyState, ErrorMessage, LoadingState } from '../../../components';
import { useComments } from '../api/tasks-api';
import { formatBytes } from '../upload/attachment-rules';

/** The task's comments, oldest first, each with its attachments as download links. */
export function CommentList(props: { taskId: string }) {
  const comments = useComments(props.taskId);
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
    <ol className="task-comments">
      {comments.data.comments.map((comment) => {
        const written = new Date(comment.created_at);
        const label = written.toLocaleString(undefined, {
          dateStyle: 'medium',
          timeStyle: 'short',
        });
        return (
          <li key={comment.id}>
            <article className="task-comment" aria-label={`Comment of ${label}`}>
              <p className="task-comment__meta">
                <time dateTime={comment.created_at}>{label}</time>
              </p>
              {comment.body && <p className="task-comment__body">{comment.body}</p>}
              {comment.attachments.length > 0 && (
                <ul className="task-attachments" aria-label="Attachments">
                  {comment.attachments.map((attachment) => (
                    <li key={attachment.url}>
                      <AttachmentLink attachment={attachment} />
                    </li>
                  ))}
                </ul>
              )}
            </article>
          </li>
        );
      })}
    </ol>
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
