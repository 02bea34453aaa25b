import { eventually, testLogger } from '@wap/testing';
import { startTestEventPruner } from './pruner';

describe('startTestEventPruner', () => {
  /** Records each pass's workflows; the passes listed in `failing` (by number) reject. */
  function recordingPrune(failing: number[] = []) {
    const passes: string[][] = [];
    return {
      passes,
      prune: (workflowIds: readonly string[]) => {
        passes.push([...workflowIds].sort());
        return failing.includes(passes.length)
          ? Promise.reject(new Error('database away'))
          : Promise.resolve();
      },
    };
  }

  const startPruner = (recorded: ReturnType<typeof recordingPrune>, intervalMs: number) =>
    startTestEventPruner({ testEvents: recorded, intervalMs, logger: testLogger() });

  test('workflows marked between two passes are pruned together, once', async () => {
    const recorded = recordingPrune();
    const pruner = startPruner(recorded, 20);
    pruner.mark(['a', 'b']);
    pruner.mark(['a']);
    await eventually(async () => expect(recorded.passes).toEqual([['a', 'b']]));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(recorded.passes).toEqual([['a', 'b']]);
    await pruner.stop();
  });

  test('a failed pass keeps its workflows for the next one', async () => {
    const recorded = recordingPrune([1]);
    const pruner = startPruner(recorded, 20);
    pruner.mark(['a']);
    await eventually(async () => expect(recorded.passes).toEqual([['a'], ['a']]));
    await pruner.stop();
  });

  test('stop prunes what is marked without waiting for the interval', async () => {
    const recorded = recordingPrune();
    const pruner = startPruner(recorded, 60_000);
    pruner.mark(['c']);
    await pruner.stop();
    expect(recorded.passes).toEqual([['c']]);
  });
});
