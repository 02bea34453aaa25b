/**
 * Polls `check` until it resolves, and returns what it resolved with; after `timeoutMs` the last
 * failure is thrown, so a test fails with the assertion that never came true.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
