/**
 * Group commit: items handed in while a write is in progress wait for it to finish and are then
 * written together, in one call of `write`; when nothing is in progress, whatever arrives within
 * the same turn of the event loop is written together. Writes never overlap, so under load the
 * batches grow instead of the round trips, and two batches never contend for the same rows.
 */
export function createGroupCommit<T, R = void>(
  write: (items: T[]) => Promise<R>,
  options: { maxBatch: number },
): (item: T) => Promise<R> {
  let pending: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    if (writing || pending.length === 0) return;
    const batch = pending.slice(0, options.maxBatch);
    pending = pending.slice(batch.length);
    writing = true;
    write(batch.map((entry) => entry.item))
      .then(
        (result) => batch.forEach((entry) => entry.resolve(result)),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        writing = false;
        flush();
      });
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (!writing && !scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
