/**
 * `npm run test:node-lts` (scripts/test-node-lts.sh) runs by default on the Node.js lines trueup supports: those
 * of package.json's engines, each of which the pinned uWebSockets.js ships a binary for (its files are named by
 * Node ABI). A line it cannot load (Node 24 with uws-pack 20.0.8) runs only when NODE_LINES asks for it.
 */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { repositoryRoot } from '../support/process.ts'

/** NODE_MODULE_VERSION of each line (nodejs.org/en/download/releases). */
const abiOfLine: Readonly<Record<string, number>> = { 18: 108, 20: 115, 21: 120, 22: 127, 23: 131, 24: 137, 25: 141 }

t.test('the default lines of test-node-lts.sh are the engines\' lines, each loadable by the pinned uWebSockets.js', async (t) => {
  const script = fs.readFileSync(path.join(repositoryRoot, 'scripts', 'test-node-lts.sh'), 'utf8')
  const declared = /^default_lines="([\d ]+)"$/m.exec(script)
  t.ok(declared !== null, 'the script declares default_lines')
  const defaults = (declared?.[1] ?? '').split(' ').filter((line) => line !== '')
  const engines = (JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')).engines.node as string)
    .split('||').map((range) => /\^(\d+)\./.exec(range)?.[1] ?? `unreadable ${range}`)
  t.same(defaults, engines, `the defaults are package.json's engines: ${engines.join(', ')}`)
  const binaries = fs.readdirSync(path.join(repositoryRoot, 'node_modules', 'uWebSockets.js', 'dist', 'bin'))
  const abis = new Set(binaries.flatMap((name) => /^uws_linux_x64_(\d+)\.node$/.exec(name)?.[1] ?? []).map(Number))
  t.ok(abis.size > 0, `uWebSockets.js binaries found: ABIs ${[...abis].join(', ')}`)
  for (const line of defaults) t.ok(abis.has(abiOfLine[line]), `Node ${line} (ABI ${abiOfLine[line]}) has a uWebSockets.js binary`)
})
