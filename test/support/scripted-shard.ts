/** @module Test support: a Shard whose every send is recorded and answered by the next scripted reply (for the ways in, without a ledger). */

import type { Operation, Reply, Shard } from '../../src/shard/operation.ts'

/** A shard whose every send is recorded and answered by the next scripted reply; one send too many throws. */
export function scriptedShard(replies: Reply[]): { shard: Shard; sent: Operation[] } {
  const sent: Operation[] = []
  const shard = {
    send: async (operation: Operation) => {
      sent.push(operation)
      const reply = replies.shift()
      if (reply === undefined) throw new Error('no reply scripted')
      return reply
    },
  } as unknown as Shard
  return { shard, sent }
}
