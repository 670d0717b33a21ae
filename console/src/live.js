// Live updates over /v2/stream (docs/API.md, WebSocket API and live updates). The browser cannot set headers on a WebSocket, so the
// key goes in the first message. "Live" once the server acknowledges the subscription; when the socket
// cannot open or closes (a proxy without WebSocket, a revoked key), the console falls back to re-reading
// after its own actions and on Refresh.

import { session } from './api.js'

const authTimeoutMs = 10_000
const subscribeId = 'window'

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
    socket.send(JSON.stringify({ type: 'subscribe', id: subscribeId, reconciliations: [windowId] }))
  })
  socket.addEventListener('message', (event) => {
    let message
    try { message = JSON.parse(event.data) } catch { return }
    if (message?.type === 'subscribed' && message.id === subscribeId) onStatus('live')
    // The server follows its acknowledgement with the window as it stands: a change between the page's
    // own read and the subscription is not missed.
    else if (message?.type === 'reconciliation' && message.data?.id === windowId) onWindow(message.data)
    else if (message?.type === 'error' && message.id === subscribeId) socket.close()
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
