import type { Attachment, ErrorBody } from '@wap/contracts';
import { ApiError } from '../../../lib/api';
import { isKnownErrorCode } from '../../../lib/api/error-messages';

export interface UploadRequest {
  taskId: string;
  workspaceId: string;
  file: File;
  /** Called as the bytes leave the browser, with the share sent so far (0 to 1). */
  onProgress: (fraction: number) => void;
}

export interface RunningUpload {
  /** The stored Attachment, or an `ApiError` (413, 415, 404...) as the API client gives one. */
  result: Promise<Attachment>;
  abort(): void;
}

/**
 * Spec endpoint 8: sends one file as multipart (`file` and `workspaceId`) with
 * XMLHttpRequest, because fetch reports no upload progress. Errors become the same
 * `ApiError` the app's API client makes, so `<ErrorMessage>` words them by code.
 */
export function uploadAttachment(request: UploadRequest): RunningUpload {
  const xhr = new XMLHttpRequest();
  const result = new Promise<Attachment>((resolve, reject) => {
    xhr.open('POST', `/tasks/${encodeURIComponent(request.taskId)}/comments/attachments`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) request.onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          request.onProgress(1);
          resolve(JSON.parse(xhr.responseText) as Attachment);
        } catch {
          reject(new ApiError(xhr.status, { error: 'The answer could not be read' }, undefined));
        }
        return;
      }
      reject(toApiError(xhr.status, xhr.responseText));
    });
    xhr.addEventListener('error', () =>
      reject(new ApiError(0, { error: 'The platform could not be reached' }, undefined)),
    );
    xhr.addEventListener('abort', () => reject(new DOMException('Upload stopped', 'AbortError')));

    const form = new FormData();
    // The fields before the file, so the server knows the workspace when the bytes arrive.
    form.append('workspaceId', request.workspaceId);
    form.append('file', request.file, request.file.name);
    xhr.send(form);
  });
  return { result, abort: () => xhr.abort() };
}

function toApiError(status: number, text: string): ApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string') {
    const errorBody = body as ErrorBody;
    return new ApiError(
      status,
      errorBody,
      isKnownErrorCode(errorBody.code) ? errorBody.code : undefined,
    );
  }
  // A proxy's own 413 page, for one, has no Error body: the status still says what happened.
  if (status === 413) return new ApiError(status, { error: 'Too large' }, 'PAYLOAD_TOO_LARGE');
  return new ApiError(status, { error: `The upload failed with status ${status}` }, undefined);
}
