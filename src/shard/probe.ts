/**
 * @module A test seam that holds for any number of shards: a function exported by a test module, run against a
 * runtime that holds workspaces on whichever thread it lives (this one, or a shard's worker thread), its result
 * sent back as a structured clone. Tests use it to snapshot now or to compare a workspace's whole state before
 * and after a request, where the public surface cannot show it. Reached only from the Service object, never
 * from the network.
 */

import type { Runtime } from '../actor/runtime.js'

export interface Probe {
  /** The module's URL (a test's import.meta.url). */
  readonly module: string
  /** Its export, called as (runtime, ...args); what it returns (or resolves to) must survive structured cloning. */
  readonly name: string
  readonly args: readonly unknown[]
}

export async function runProbe(runtime: Runtime, probe: Probe): Promise<unknown> {
  const loaded = await import(probe.module) as Record<string, unknown>
  const probed = loaded[probe.name]
  if (typeof probed !== 'function') throw new Error(`probe ${probe.name} is not a function of ${probe.module}`)
  return await (probed as (runtime: Runtime, ...args: unknown[]) => unknown)(runtime, ...probe.args)
}
