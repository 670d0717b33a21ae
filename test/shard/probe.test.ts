/** Tests for runProbe: a test module's export, found by URL and name, is called with the runtime and the probe's args. */
import t from 'tap'
import type { Runtime } from '../../src/actor/runtime.ts'
import { runProbe } from '../../src/shard/probe.ts'

/** The runtime is only passed through: a stand-in object is enough to see that it arrives unchanged. */
const runtime = { marker: 'the runtime' } as unknown as Runtime

export function echoProbe(given: Runtime, ...args: unknown[]): { runtime: Runtime, args: unknown[] } {
  return { runtime: given, args }
}

export async function laterProbe(_given: Runtime, value: number): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve))
  return value * 2
}

export function failingProbe(): never {
  throw new Error('probe failed on purpose')
}

export const notAFunction = 42

t.test('the named export is called with the runtime first and then the args, in order', async (t) => {
  const result = await runProbe(runtime, { module: import.meta.url, name: 'echoProbe', args: ['a', 2, { c: true }] })
  t.same(result, { runtime, args: ['a', 2, { c: true }] })
  t.equal((result as { runtime: Runtime }).runtime, runtime, 'the very runtime given')
})

t.test('no args: the export gets the runtime alone', async (t) => {
  t.same(await runProbe(runtime, { module: import.meta.url, name: 'echoProbe', args: [] }), { runtime, args: [] })
})

t.test('what an async export resolves to is what the probe returns', async (t) => {
  t.equal(await runProbe(runtime, { module: import.meta.url, name: 'laterProbe', args: [21] }), 42)
})

t.test('an export that throws rejects the probe with its error', async (t) => {
  await t.rejects(runProbe(runtime, { module: import.meta.url, name: 'failingProbe', args: [] }), /probe failed on purpose/)
})

t.test('a name that is missing, or not a function, is refused with the name and the module', async (t) => {
  await t.rejects(runProbe(runtime, { module: import.meta.url, name: 'noSuchProbe', args: [] }), { message: `probe noSuchProbe is not a function of ${import.meta.url}` })
  await t.rejects(runProbe(runtime, { module: import.meta.url, name: 'notAFunction', args: [] }), /probe notAFunction is not a function/)
})

t.test('a module that cannot be loaded rejects the probe', async (t) => {
  await t.rejects(runProbe(runtime, { module: new URL('./no-such-module.ts', import.meta.url).href, name: 'echoProbe', args: [] }))
})
