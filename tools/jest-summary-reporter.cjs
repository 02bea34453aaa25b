// Records each jest run's counts under tmp/test-results so tools/run-tests.mjs can print one
// closing line for the whole suite across every project.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class SummaryReporter {
  onRunComplete(contexts, results) {
    const [context] = contexts;
    const displayName = context && context.config.displayName;
    const name = (displayName && (displayName.name || displayName)) || 'jest';
    const dir = join(__dirname, '..', 'tmp', 'test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${name}-${process.pid}.json`),
      JSON.stringify({
        project: name,
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = SummaryReporter;
