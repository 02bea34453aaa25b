import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

interface EmittedChunk {
  type: 'chunk';
  fileName: string;
  code: string;
  isEntry: boolean;
  imports: string[];
}

/**
 * Prints the gzipped size of the JavaScript the first page loads (the entry chunk and every
 * chunk it imports statically; lazy routes are not in it) and fails the build above the
 * budget, so a feature that forgets to lazy-load its routes is caught when it is built.
 */
export function firstPageBudget(options: { maxGzipKiB: number }): Plugin {
  return {
    name: 'first-page-budget',
    apply: 'build',
    generateBundle(_outputOptions, bundle) {
      const chunks = new Map<string, EmittedChunk>();
      for (const output of Object.values(bundle)) {
        if (output.type === 'chunk') chunks.set(output.fileName, output);
      }
      const firstPage = new Set<string>();
      const visit = (fileName: string) => {
        if (firstPage.has(fileName)) return;
        firstPage.add(fileName);
        for (const imported of chunks.get(fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks.values()) if (chunk.isEntry) visit(chunk.fileName);

      let gzipBytes = 0;
      for (const fileName of firstPage) {
        gzipBytes += gzipSync(chunks.get(fileName)?.code ?? '').byteLength;
      }
      let lazyGzipBytes = 0;
      for (const chunk of chunks.values()) {
        if (!firstPage.has(chunk.fileName)) lazyGzipBytes += gzipSync(chunk.code).byteLength;
      }
      const kib = (bytes: number) => (bytes / 1024).toFixed(1);
      this.info(
        `first page JavaScript: ${kib(gzipBytes)} KiB gzipped in ${firstPage.size} chunk(s) ` +
          `(budget ${options.maxGzipKiB} KiB); lazy routes: ${kib(lazyGzipBytes)} KiB gzipped ` +
          `in ${chunks.size - firstPage.size} chunk(s)`,
      );
      if (gzipBytes > options.maxGzipKiB * 1024) {
        this.error(
          `the first page's JavaScript is ${kib(gzipBytes)} KiB gzipped, over the ` +
            `${options.maxGzipKiB} KiB budget: lazy-load the feature's routes`,
        );
      }
    },
  };
}
