// Records each jest run's counts and failures under tmp/test-results so tools/run-tests.mjs can
// close the whole suite with one line and the failed tests again: a CI log is often read from its
// tail only.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const MESSAGE_CHARACTERS = 1_500;
const repositoryRoot = join(__dirname, '..');

/** Each failed test, and each file that failed before its tests ran, with where and why. */
function failuresOf(results) {
  return results.testResults.flatMap((file) => {
    const path = relative(repositoryRoot, file.testFilePath);
    if (file.testExecError) {
      // jest-circus reports errors thrown by afterAll hooks, and uncaught ones, with an empty
      // message and the errors in the stack only.
      const { message, stack } = file.testExecError;
      return [
        {
          path,
          test: '(the file did not run, or failed outside its tests)',
          message: (message || stack || '').slice(0, MESSAGE_CHARACTERS),
        },
      ];
    }
    return file.testResults
      .filter((test) => test.status === 'failed')
      .map((test) => ({
        path,
        test: test.fullName,
        message: test.failureMessages
          .join('\n')
          .split('\n')
          .filter((line) => !line.includes('/node_modules/'))
          .join('\n')
          .slice(0, MESSAGE_CHARACTERS),
      }));
  });
}

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
        failures: failuresOf(results),
      }),
    );
  }
}

module.exports = SummaryReporter;
