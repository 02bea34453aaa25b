import { fileTypeFromBuffer } from 'file-type';
import type { AttachmentType } from '@wap/contracts';

/**
 * Bytes read before the kind is decided: enough for every signature file-type reads and for
 * an Office file's `[Content_Types].xml`, which Office and the libraries that write such files
 * put first (decision 64).
 */
export const SNIFF_BYTES = 64 * 1024;

/** The binary kinds file-type names, mapped to the attachment types they are allowed as. */
const BINARY_KINDS: Record<string, AttachmentType> = {
  'image/jpeg': 'image/jpeg',
  'image/png': 'image/png',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
  'application/pdf': 'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet':
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** An OLE compound file (`.doc`, `.xls`): file-type calls it `cfb` without saying which. */
const CFB_MIME = 'application/x-cfb';
/** The stream names, in UTF-16LE as a compound file's directory holds them, that tell which. */
const WORD_STREAM = Buffer.from('WordDocument', 'utf16le');
const EXCEL_STREAMS = [Buffer.from('Workbook', 'utf16le'), Buffer.from('Book', 'utf16le')];

/** Tab, LF, FF and CR are the control characters text files hold. */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d]);

/** A C0 control character or DEL that text files do not hold. */
export function isControlCharacter(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return (code < 0x20 && !TEXT_CONTROLS.has(code)) || code === 0x7f;
}

/** Text that is not UTF-8, or holds control characters other than tab, CR, LF and FF. */
function isText(head: Uint8Array, complete: boolean): boolean {
  // A multi-byte character may be cut at the end of the head: drop up to three bytes there.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (let cut = 0; cut <= (complete ? 0 : 3); cut += 1) {
    try {
      const text = decoder.decode(head.subarray(0, head.length - cut));
      return ![...text].some(isControlCharacter);
    } catch {
      continue;
    }
  }
  return false;
}

function textOf(head: Uint8Array): string {
  return new TextDecoder('utf-8').decode(head).replace(/^\uFEFF/u, '');
}

/** An SVG: its root element, after any XML declaration, comments and doctype, is `<svg`. */
function isSvg(text: string): boolean {
  const start = text.replace(
    /^\s*(<\?xml[^>]*\?>\s*)?((<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)\s*)*/iu,
    '',
  );
  return /^<svg[\s>/]/iu.test(start);
}

/**
 * CSV: at least two lines, and the first lines (up to five) each hold the same number (one or
 * more) of commas or of semicolons outside double quotes.
 */
function isCsv(text: string): boolean {
  const lines = text.split(/\r?\n/u).filter((line) => line.trim() !== '');
  const whole = lines.slice(0, 5);
  if (whole.length < 2) return false;
  return [',', ';'].some((delimiter) => {
    const counts = whole.map((line) => line.replace(/"[^"]*"/gu, '').split(delimiter).length - 1);
    return counts[0] !== undefined && counts[0] > 0 && counts.every((count) => count === counts[0]);
  });
}

/**
 * The allowed kind of a file from its first bytes, or null when it is none of them. `complete`
 * says the head is the whole file. A compound file is told apart by `compoundKind` later.
 */
export async function sniffKind(
  head: Uint8Array,
  complete: boolean,
): Promise<AttachmentType | 'compound' | null> {
  const detected = await fileTypeFromBuffer(head);
  // XML is text: an SVG is told from other XML below.
  if (detected && detected.mime !== 'application/xml') {
    if (detected.mime === CFB_MIME) return 'compound';
    return BINARY_KINDS[detected.mime] ?? null;
  }
  if (head.length === 0 || !isText(head, complete)) return null;
  const text = textOf(head);
  if (isSvg(text)) return 'image/svg+xml';
  return isCsv(complete ? text : text.slice(0, text.lastIndexOf('\n') + 1))
    ? 'text/csv'
    : 'text/plain';
}

/** Finds which Office program wrote a compound file, from the stream names it holds. */
export class CompoundKindScanner {
  private tail: Buffer = Buffer.alloc(0);
  private word = false;
  private excel = false;

  push(chunk: Uint8Array): void {
    // Keep enough of the previous chunk that a name cut in two is still found.
    const window = Buffer.concat([this.tail, chunk]);
    this.word ||= window.includes(WORD_STREAM);
    this.excel ||= EXCEL_STREAMS.some((name) => window.includes(name));
    this.tail = window.subarray(Math.max(0, window.length - WORD_STREAM.length));
  }

  kind(): AttachmentType | null {
    if (this.word) return 'application/msword';
    if (this.excel) return 'application/vnd.ms-excel';
    return null;
  }
}

/** Whether a chunk of a text file holds a NUL: text checked at its head must stay text. */
export function hasNul(chunk: Uint8Array): boolean {
  return chunk.includes(0);
}
