import type { DeadLetter } from '../streams/dead-letters';
import type { GrantResult } from '../credits/grant-credits';
import type { StreamState } from '../streams/stream-state';
import type { WorkspaceSummary } from '../workspaces/workspace-commands';

/** Left-aligned columns, two spaces apart, with a header row. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function grantText(result: GrantResult): string {
  const verb = result.amount > 0 ? 'granted' : 'corrected by';
  return `${verb} ${result.amount} credits on workspace ${result.workspaceId}: balance ${result.balance}`;
}

export function workspacesText(workspaces: WorkspaceSummary[]): string {
  if (workspaces.length === 0) return 'no workspaces';
  return table(
    ['ID', 'NAME', 'MEMBERS', 'OWNERS', 'STATE'],
    workspaces.map((workspace) => [
      workspace.id,
      workspace.name,
      String(workspace.members),
      workspace.owners.join(','),
      workspace.deleted ? 'deleted' : 'active',
    ]),
  );
}

export function streamsText(streams: StreamState[]): string {
  if (streams.length === 0) return 'no streams';
  return streams
    .map((stream) => {
      const heading =
        `${stream.name} (${stream.kind}): ${stream.messages} messages, ${stream.bytes} bytes, ` +
        `seq ${stream.firstSeq}..${stream.lastSeq}; subjects ${stream.subjects.join(', ') || '-'}`;
      if (stream.consumers.length === 0) return `${heading}\n  no consumers`;
      const consumers = table(
        ['CONSUMER', 'FILTER', 'PENDING', 'ACK PENDING', 'REDELIVERED', 'WAITING'],
        stream.consumers.map((consumer) => [
          consumer.name,
          consumer.filterSubject ?? '-',
          String(consumer.pending),
          String(consumer.ackPending),
          String(consumer.redelivered),
          String(consumer.waiting),
        ]),
      );
      return `${heading}\n${consumers.replace(/^/gm, '  ')}`;
    })
    .join('\n\n');
}

export function deadLettersText(letters: DeadLetter[]): string {
  if (letters.length === 0) return 'no dead letters';
  return table(
    ['SEQ', 'TIME', 'CONSUMER', 'REASON', 'ATTEMPTS', 'FROM', 'BYTES', 'ERROR'],
    letters.map((letter) => [
      String(letter.seq),
      letter.time,
      letter.consumer,
      letter.reason,
      String(letter.attempts),
      `${letter.stream} ${letter.subject} #${letter.originalSeq}`,
      String(letter.bytes),
      letter.error ?? '-',
    ]),
  );
}
