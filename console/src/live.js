// Live updates over /v2/stream (CONTRACT.md 12). The browser cannot set headers on a WebSocket, so the
// key goes in the first message. When the upgrade fails (a server without the stream answers 404), the
// console falls back to re-reading after its own actions and on Refresh.

import { session } from './api.js'

const authTimeoutMs = 10_000

/**
 * Subscribes to one window's updates. onStatus('connecting' | 'live' | 'unavailable'),
 * onWindow(window object). Returns a function that closes the socket.
 */
export function watchWindow(windowId, { onStatus, onWindow }) {
  let socket
  let opened = false
  let stopped = false
  onStatus('connecting')
  try {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:'
    socket = new WebSocket(`${scheme}//${location.host}/v2/stream`)
  } catch {
    onStatus('unavailable')
    return () => {}
  }
  const timer = setTimeout(() => { if (!opened) socket.close() }, authTimeoutMs)
  socket.addEventListener('open', () => {
    opened = true
    clearTimeout(timer)
    socket.send(JSON.stringify({ type: 'auth', key: session.key() }))
    socket.send(JSON.stringify({ type: 'subscribe', reconciliations: [windowId] }))
    onStatus('live')
  })
  socket.addEventListener('message', (event) => {
    let message
    try { message = JSON.parse(event.data) } catch { return }
    if (message?.type === 'reconciliation' && message.data?.id === windowId) onWindow(message.data)
  })
  socket.addEventListener('close', () => {
    clearTimeout(timer)
    if (!stopped) onStatus('unavailable')
  })
  return () => {
    stopped = true
    clearTimeout(timer)
    socket.close()
  }
}
