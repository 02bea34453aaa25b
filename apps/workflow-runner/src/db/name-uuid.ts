import { createHash } from 'node:crypto';

/**
 * A uuid-shaped SHA-256 of a name: the same id for the same name on every replica and after
 * every crash, so that something decided twice is created once (`on conflict (id) do nothing`).
 */
export function uuidOfName(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
