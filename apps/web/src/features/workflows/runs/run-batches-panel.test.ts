import { describe, expect, test } from 'vitest';
import type { RunBatch, RunCounts } from '@wap/contracts';
import { batchProgressText, batchSizeText, matchingRuns } from './run-batches-panel';

const counts: RunCounts = {
  by_status: {
    queued: 1,
    running: 2,
    waiting_approval: 3,
    succeeded: 10,
    failed: 20,
    cancelled: 30,
  },
  capped: false,
};

describe('the runs list bulk actions', () => {
  test('count the ended and the open runs the filter keeps', () => {
    expect(matchingRuns({}, counts)).toEqual({ ended: 60, open: 6 });
    expect(matchingRuns({ status: 'failed' }, counts)).toEqual({ ended: 20, open: 0 });
    expect(matchingRuns({ status: 'waiting_approval' }, counts)).toEqual({ ended: 0, open: 3 });
  });

  test('say when more match than one batch takes', () => {
    expect(batchSizeText(1)).toBe('1 run');
    expect(batchSizeText(1_000)).toBe('1,000 runs');
    expect(batchSizeText(4_500)).toBe('up to 1,000 of 4,500 runs');
    expect(batchSizeText(10_000)).toBe('up to 1,000 of 10,000+ runs');
  });

  test('a batch reads as how many it reached and what became of them', () => {
    const progress = {
      pending: 5,
      started: 3,
      cancelled: 0,
      cancel_requested: 0,
      already_ended: 1,
      failed: 1,
      skipped: 0,
    };
    expect(batchProgressText({ total: 10, progress } as RunBatch)).toBe(
      '5 of 10 done: 3 started, 1 had ended, 1 failed',
    );
    expect(
      batchProgressText({
        total: 2,
        progress: { ...progress, pending: 2, started: 0, already_ended: 0, failed: 0 },
      } as RunBatch),
    ).toBe('0 of 2 done');
  });
});
