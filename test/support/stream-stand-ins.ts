/**
 * @module A stand-in shard that records the operations it is sent and answers each with a reply the test chose
 * (by op), and a StreamSession over a socket that records what is written to it: for the stream's own tests.
 */
import type { Caller } from '../../src/api/lifecycle.ts'
import type { KeyRecord, Scope } from '../../src/ledger/system.ts'
import type { Operation, Reply, Shard, UpdateListener } from '../../src/shard/operation.ts'
import { StreamSession, type SocketLike } from '../../src/stream/session.ts'

export interface StandInShard {
  readonly shard: Shard
  readonly sent: Operation[]
  /** The reply for each op; an op without one answers 200 with an empty object. */
  readonly replies: Map<Operation['op'], Reply>
  /** Hands an update to the shard's listeners, as a shard does once a command is durable. */
  update(topic: string, text: string): void
}

export function standInShard(): StandInShard {
  const sent: Operation[] = []
  const replies = new Map<Operation['op'], Reply>()
  const listeners: UpdateListener[] = []
  const shard = {
    send: async (operation: Operation) => {
      sent.push(operation)
      return replies.get(operation.op) ?? { status: 200, headers: [], body: '{}' }
    },
    onUpdate: (listener: UpdateListener) => { listeners.push(listener) },
    onSystemCommand: () => {},
  } as unknown as Shard
  return { shard, sent, replies, update: (topic, text) => { for (const listener of listeners) listener(topic, text) } }
}

export type RecordingSession = StreamSession & { written: string[], joined: Set<string>, ended: [number, string][] }

/** A session whose socket records what is written (`written`), the app topics it is on (`joined`) and its close frames. */
export function recordingSession(): RecordingSession {
  const written: string[] = []
  const joined = new Set<string>()
  const ended: [number, string][] = []
  const socket: SocketLike = {
    send: (text) => { written.push(text); return 1 }, cork: (cb) => cb(), getBufferedAmount: () => 0,
    end: (code, reason) => { ended.push([code, reason]) }, close: () => {},
    subscribe: (topic) => joined.add(topic), unsubscribe: (topic) => joined.delete(topic),
  }
  return Object.assign(new StreamSession(socket), { written, joined, ended })
}

/** The session authenticated with a key of workspace `workspace` holding `scopes` (visibility: `accounts`, null for all). */
export function authenticatedAs(session: StreamSession, scopes: readonly Scope[], workspace = 'w', accounts: readonly string[] | null = null): KeyRecord {
  const key: KeyRecord = { id: 'key_1', workspace, scopes, accounts, name: null, secretHash: '', createdAtMs: 0, revokedAtMs: null }
  session.caller = { key, workspace: null } as Caller
  return key
}

/** Resolves once the microtasks and promise reactions queued now have run (a session flushes its outbox in one). */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
