/**
 * The V8 flags the service runs with: package.json's start script passes them to node, the bench
 * starts its service with them, and tests/cli/start.test.ts checks that the two agree.
 *
 * - A young generation of at most 3 × 8 MB instead of Node's 3 × 16 MB: under 50 connections
 *   creating conversations, the service's peak resident memory went from 190 to 164 MiB, with no
 *   CPU cost the bench could tell from its noise.
 * - The old generation may grow to 3 times what the last full collection left alive, not 4 (V8's
 *   ceiling when memory is plentiful). The service keeps about 25 MB alive, and under load its
 *   heap grew to four times that before each full collection: peaks of 181–185 MiB in short runs
 *   of the writes, 191–201 MiB over full bench runs. At 3 times: 156–158 MiB in the same short
 *   runs, at 0–4% more CPU per write (within the bench's noise). At 1.5 or 2 times the peak was
 *   125–138 MiB but writes cost 5–10% more. docs/performance.md has the figures.
 */
export const serviceNodeFlags: ReadonlyArray<string> = ['--max-semi-space-size=8', '--heap-growing-percent=200']
