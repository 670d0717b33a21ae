// Close (from balanced, or within tolerance with a reason; optionally locking the period: docs/API.md,
// Period locks) and abandon (with a reason).

import { useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc } from '../api.js'

export function Transitions({ window, act }) {
  const [closeReason, setCloseReason] = useState('')
  const [abandonReason, setAbandonReason] = useState('')
  const [lock, setLock] = useState(false)
  const path = `/v2/reconciliations/${enc(window.id)}`
  const close = (event) => {
    event.preventDefault()
    const body = { state: 'closed', ...(closeReason.trim() === '' ? {} : { reason: closeReason.trim() }), ...(lock ? { lock_period: true } : {}) }
    const done = lock ? 'The window is closed and its period locked: its figures are frozen and nothing can be posted into it.' : 'The window is closed: its figures are frozen.'
    act(() => done, () => api('PATCH', path, { body }))
  }
  const abandon = (event) => {
    event.preventDefault()
    act(() => 'The window is abandoned.', () => api('PATCH', path, { body: { state: 'abandoned', reason: abandonReason.trim() } }))
  }
  return html`<section aria-labelledby="transitions-heading" class="transitions">
    <h2 id="transitions-heading">Close or abandon</h2>
    <form class="panel" onSubmit=${close} aria-label="Close the window">
      <label>Close reason (needed when the residual is not zero) <input value=${closeReason} maxlength="500" onInput=${(event) => setCloseReason(event.currentTarget.value)} /></label>
      <label><input type="checkbox" checked=${lock} onChange=${(event) => setLock(event.currentTarget.checked)} /> Lock the period (for good: no posting into it on these accounts)</label>
      <button type="submit">Close window</button>
    </form>
    <form class="panel" onSubmit=${abandon} aria-label="Abandon the window">
      <label>Abandon reason <input required value=${abandonReason} maxlength="500" onInput=${(event) => setAbandonReason(event.currentTarget.value)} /></label>
      <button type="submit" class="danger">Abandon window</button>
    </form>
  </section>`
}
