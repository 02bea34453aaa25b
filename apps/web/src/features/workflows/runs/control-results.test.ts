import { describe, expect, test } from 'vitest';
import { branchLabel, calledRunOf, iterationsOf, nestingOf } from './control-results';

describe('control step results on the run page', () => {
  test('branches are named as a person counts them', () => {
    expect(branchLabel('then')).toBe('then');
    expect(branchLabel('case:0')).toBe('case 1');
    expect(branchLabel('default')).toBe('default');
  });

  test('a step is as deep as the branches around it', () => {
    const steps = [
      { parent_index: null },
      { parent_index: 0 },
      { parent_index: 1 },
      { parent_index: null },
    ];
    expect(steps.map((_, index) => nestingOf(steps, index))).toEqual([0, 1, 2, 0]);
  });

  test("a loop's iterations and a call's run are read from their outputs", () => {
    const output = {
      count: 2,
      iterations: [
        { index: 0, run_id: 'a', steps: {} },
        { index: 1, run_id: 'b' },
      ],
    };
    expect(iterationsOf(output)).toEqual([
      { index: 0, runId: 'a' },
      { index: 1, runId: 'b' },
    ]);
    expect(iterationsOf(null)).toEqual([]);
    expect(iterationsOf({ error: 'x', output: null })).toEqual([]);
    expect(calledRunOf({ run_id: 'c', status: 'succeeded' })).toBe('c');
    expect(calledRunOf({})).toBeUndefined();
  });
});
