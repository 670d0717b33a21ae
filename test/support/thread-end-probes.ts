/**
 * @module Probes (src/shard/probe.ts) that end the shard's thread they run on, for test/shard/worker-shard.test.ts:
 * the thread exits with a code, or an error is thrown on it outside any handler. Kept apart from the test file, which
 * the thread imports to find them (a tap test file imported there would run its tests).
 */

/** Ends the thread with this exit code (process.exit on a worker thread ends that thread only). */
export function exitThreadProbe(_runtime: unknown, code: number): Promise<never> {
  process.exit(code)
}

/** Throws on the thread's next turn, where nothing catches it; the probe itself never answers. */
export function throwOnThreadProbe(_runtime: unknown, message: string): Promise<never> {
  setImmediate(() => { throw new Error(message) })
  return new Promise(() => undefined)
}
