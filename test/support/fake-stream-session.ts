/** @module A StreamSession over a fake socket whose unread bytes a test sets, for the send-buffer bounds' tests. */
import type { Caller } from '../../src/api/lifecycle.ts'
import { StreamSession, type BufferWatcher, type SocketLike } from '../../src/stream/session.ts'

export type FakeSession = StreamSession & { aborted: () => boolean; setBytes: (bytes: number) => void }

/** A session of key `keyId` whose socket holds `bytes` unread (setBytes moves it); aborted() says whether it was closed. */
export function fakeSession(buffers: BufferWatcher, keyId: string, bytes: number): FakeSession {
  let buffered = bytes
  let aborted = false
  const socket: SocketLike = {
    send: () => 1, cork: (cb) => cb(), getBufferedAmount: () => buffered, end: () => {}, close: () => { aborted = true },
    subscribe: () => {}, unsubscribe: () => {},
  }
  const made = new StreamSession(socket, buffers)
  made.caller = { key: { id: keyId } } as unknown as Caller
  return Object.assign(made, { aborted: () => aborted, setBytes: (next: number) => { buffered = next } })
}
