import type { Logger } from 'pino';
import { CHAT_SUBJECTS, type TurnEventType, type TurnProgress } from '@wap/contracts';
import { encodeJson, type Bus } from '@wap/platform';
import type { StoredEvent, TurnRepository } from './repository';

/**
 * The events of one running turn, written as they come: while one write is in flight the
 * next events gather and go in the following one, so a fast stream costs a few statements a
 * second, not one per token, and a slow one is stored at once. Consecutive text deltas that
 * wait together are stored as one. After each write every replica hears that the turn moved.
 */
export interface TurnEventWriter {
  append(type: TurnEventType, data: Record<string, unknown>): void;
  /** Resolves when everything appended so far is stored; rejects if a write failed. */
  flushed(): Promise<void>;
  /** The seq of the last stored event. */
  lastSeq(): number;
}

/** Events at most carried in a progress message (well under NATS' 1 MiB payload), in characters. */
const PROGRESS_EVENTS_MAX_CHARS = 64 * 1024;

export function publishProgress(bus: Bus, progress: TurnProgress): void {
  bus.publish(CHAT_SUBJECTS.turnProgress, encodeJson(progress));
}

export function openEventWriter(deps: {
  requestId: string;
  /** The seq already stored (the turn's first status event). */
  storedSeq: number;
  repository: TurnRepository;
  bus: Bus;
  logger: Logger;
  /** Called once when a write fails; later events are not written. */
  onFailure: () => void;
}): TurnEventWriter {
  const { requestId, repository, bus } = deps;
  let pending: Array<Omit<StoredEvent, 'seq'>> = [];
  let stored = deps.storedSeq;
  let writing: Promise<void> | null = null;
  let failure: unknown = null;

  async function drain(): Promise<void> {
    while (pending.length > 0 && failure === null) {
      const batch = coalesceDeltas(pending).map((event, index) => ({
        ...event,
        seq: stored + index + 1,
      }));
      pending = [];
      try {
        await repository.appendEvents(requestId, batch);
      } catch (error) {
        failure = error;
        deps.logger.warn({ err: error, requestId }, 'storing turn events failed');
        deps.onFailure();
        return;
      }
      stored += batch.length;
      const size = batch.reduce((total, event) => total + JSON.stringify(event.data).length, 0);
      publishProgress(bus, {
        requestId,
        lastSeq: stored,
        ...(size <= PROGRESS_EVENTS_MAX_CHARS ? { events: batch } : {}),
      });
    }
  }

  function kick(): void {
    writing ??= drain().finally(() => {
      writing = null;
      if (pending.length > 0 && failure === null) kick();
    });
  }

  return {
    append(type, data) {
      pending.push({ type, data });
      kick();
    },
    async flushed() {
      while (writing) await writing;
      if (failure !== null) throw failure;
    },
    lastSeq: () => stored,
  };
}

function coalesceDeltas(events: Array<Omit<StoredEvent, 'seq'>>): Array<Omit<StoredEvent, 'seq'>> {
  const merged: Array<Omit<StoredEvent, 'seq'>> = [];
  for (const event of events) {
    const previous = merged.at(-1);
    if (event.type === 'delta' && previous?.type === 'delta') {
      previous.data = { text: String(previous.data['text']) + String(event.data['text']) };
    } else {
      merged.push({ ...event });
    }
  }
  return merged;
}
