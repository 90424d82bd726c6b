/**
 * The V8 flags the service runs with: package.json's start script passes them to node, the bench
 * starts its service with them, and tests/cli/start.test.ts checks that the two agree.
 *
 * A young generation of at most 3 × 8 MB instead of Node's 3 × 16 MB: under 50 connections
 * creating conversations, the service's peak resident memory went from 190 to 164 MiB, with no
 * CPU cost the bench could tell from its noise (docs/performance.md).
 */
export const serviceNodeFlags: ReadonlyArray<string> = ['--max-semi-space-size=8']
