import { createGroupCommit } from './group-commit';

describe('createGroupCommit', () => {
  /** A write that records its batches and stays open until the test finishes it. */
  function heldWrite() {
    const batches: number[][] = [];
    const finishers: (() => void)[] = [];
    return {
      batches,
      finish: (index: number) => finishers[index]?.(),
      write: (items: number[]) =>
        new Promise<number>((resolve) => {
          batches.push(items);
          finishers.push(() => resolve(items.length));
        }),
    };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  test('items of one turn are written together; items arriving during a write wait and share the next one', async () => {
    const held = heldWrite();
    const add = createGroupCommit(held.write, { maxBatch: 100 });
    const first = [add(1), add(2)];
    await nextTurn();
    expect(held.batches).toEqual([[1, 2]]);
    const second = [add(3), add(4), add(5)];
    await nextTurn();
    // The first write is still open: nothing overlaps it.
    expect(held.batches).toEqual([[1, 2]]);
    held.finish(0);
    expect(await Promise.all(first)).toEqual([2, 2]);
    await nextTurn();
    expect(held.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    held.finish(1);
    expect(await Promise.all(second)).toEqual([3, 3, 3]);
  });

  test('a batch holds at most maxBatch items; the rest go in the following writes', async () => {
    const batches: number[][] = [];
    const add = createGroupCommit(
      async (items: number[]) => {
        batches.push(items);
      },
      { maxBatch: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((item) => add(item)));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('a failed write rejects its own items only, and the next write still happens', async () => {
    const batches: number[][] = [];
    const add = createGroupCommit(
      async (items: number[]) => {
        batches.push(items);
        if (items.includes(1)) throw new Error('refused');
      },
      { maxBatch: 10 },
    );
    const failing = add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = add(2);
    await expect(failing).rejects.toThrow('refused');
    await expect(later).resolves.toBeUndefined();
    expect(batches).toEqual([[1], [2]]);
  });
});
