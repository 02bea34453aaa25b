import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DurableLog } from './durable-log';

interface Entry {
  id: number;
}

describe('DurableLog', () => {
  it('loses no append made while the log is being rewritten', async () => {
    const filePath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'durable-log-')), 'x.log');
    const { log } = await DurableLog.open<Entry>(filePath);
    // The owner's state: what a rewrite must keep. Odd ids are dropped before the rewrite.
    const state = new Map<number, Entry>();
    const append = (id: number) => {
      state.set(id, { id });
      return log.append({ id });
    };
    await Promise.all(Array.from({ length: 200 }, (_unused, index) => append(index)));
    for (const id of state.keys()) if (id % 2 === 1) state.delete(id);

    const before = Array.from({ length: 100 }, (_unused, index) => append(200 + index));
    let during: Promise<void>[] = [];
    const rewriting = log.rewrite(() => {
      const kept = [...state.values()];
      // Appended after the snapshot was taken, while the new file is being written.
      during = Array.from({ length: 100 }, (_unused, index) => append(300 + index));
      return kept;
    });
    await Promise.all([...before, rewriting]);
    await Promise.all(during);
    expect(during).toHaveLength(100);
    // The appends made during the rewrite count towards the next one: 100 + 900 reach 1 000.
    expect(log.worthCompacting(0)).toBe(false);
    await Promise.all(Array.from({ length: 900 }, (_unused, index) => append(400 + index)));
    expect(log.worthCompacting(0)).toBe(true);
    await log.close();

    const { log: reopened, records } = await DurableLog.open<Entry>(filePath);
    await reopened.close();
    const ids = [...new Set(records.map((record) => record.id))].sort((a, b) => a - b);
    expect(ids).toEqual([...state.keys()].sort((a, b) => a - b));
  });
});
