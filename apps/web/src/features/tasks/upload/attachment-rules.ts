import { ATTACHMENT_MAX_BYTES, ATTACHMENT_TYPES, type AttachmentType } from '@wap/contracts';

/** The file name endings of each allowed kind, for the file picker and the check before sending. */
const EXTENSIONS: Record<AttachmentType, readonly string[]> = {
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/png': ['.png'],
  'image/gif': ['.gif'],
  'image/webp': ['.webp'],
  'image/svg+xml': ['.svg'],
  'application/pdf': ['.pdf'],
  'application/msword': ['.doc'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['.docx'],
  'application/vnd.ms-excel': ['.xls'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['.xlsx'],
  'text/plain': ['.txt'],
  'text/csv': ['.csv'],
};

const ALLOWED_KINDS = 'images (JPEG, PNG, GIF, WebP, SVG), PDF, Word, Excel, plain text or CSV';

/** What may be attached, as the person reads it under the file picker. */
export const ALLOWED_KINDS_SENTENCE = `You can attach ${ALLOWED_KINDS}, up to 10 MB each.`;

/** The `accept` attribute of the file input: the picker offers the allowed kinds first. */
export const ACCEPT_ATTRIBUTE = [...ATTACHMENT_TYPES, ...Object.values(EXTENSIONS).flat()].join(
  ',',
);

/**
 * Why the file cannot be attached, or null when it may be sent. The server decides the kind
 * from the bytes (decision 64); this check only spares a person a pointless upload, by the
 * browser's type or the name's ending.
 */
export function refusalOf(file: File): string | null {
  if (file.size > ATTACHMENT_MAX_BYTES) {
    return `${file.name} is ${formatBytes(file.size)}, over the limit of 10 MB a file.`;
  }
  if (file.size === 0) return `${file.name} is empty.`;
  const name = file.name.toLowerCase();
  const allowedType = (ATTACHMENT_TYPES as readonly string[]).includes(file.type);
  const allowedName = Object.values(EXTENSIONS).some((endings) =>
    endings.some((ending) => name.endsWith(ending)),
  );
  if (!allowedType && !allowedName) {
    return `${file.name} is not a kind of file that can be attached: attach ${ALLOWED_KINDS}.`;
  }
  return null;
}

/** A size as a person reads it: 68 bytes, 12.4 KB, 3.1 MB (1 KB = 1024 bytes, as the limit). */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} ${size === 1 ? 'byte' : 'bytes'}`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}
