import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Records the run's counts under tmp/test-results, as tools/jest-summary-reporter.cjs does for
 * jest, so `npm test`'s closing line counts the web app's unit tests too.
 */
export default class TestSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) {
        counts.failed += 1;
      }
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    const dir = join(import.meta.dirname, '../../../tmp/test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `web-${process.pid}.json`),
      JSON.stringify({ project: 'web', ...counts }),
    );
  }
}
