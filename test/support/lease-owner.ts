/**
 * @module Test support: a shard's owner (a ShardReplica over a log in memory) in a process of its own, so that a test
 * can block its event loop while a standby in the test's process goes on. `node --import=tsx test/support/lease-owner.ts
 * <database url> <node id>` prints one line per event (`serving`, `lost <why>`, `warn <line>`, `blocking`,
 * `unblocked`) and reads commands on stdin: `block <ms>` busy-waits that long on the main thread, `exit` closes.
 */

import readline from 'node:readline'
import { ShardReplica } from '../../src/cluster/shard-replica.ts'
import { memoryLog } from './memory-follow.ts'

const [databaseUrl, nodeId] = process.argv.slice(2)
const say = (line: string) => process.stdout.write(`${line.replace(/\n/g, ' ')}\n`)

const replica = await ShardReplica.open({
  databaseUrl, nodeId, nodeUrl: `http://127.0.0.1:1/${nodeId}`, shard: 0, local: memoryLog(),
  warn: (line) => say(`warn ${line}`), onLost: (error) => say(`lost ${error.message}`), onServing: () => say('serving'),
})
await replica.start()

for await (const line of readline.createInterface({ input: process.stdin })) {
  const [command, argument] = line.split(' ')
  if (command === 'block') {
    say('blocking')
    const endMs = Date.now() + Number(argument)
    while (Date.now() < endMs) { /* the main thread's event loop blocked: its timers, its sockets, its messages */ }
    say('unblocked')
  }
  if (command === 'exit') break
}
await replica.close()
process.exit(0)
