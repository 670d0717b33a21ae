// Reversing an entry (docs/API.md, Reversals): an entry is never changed, it is undone by a new entry with
// every line negated. The entries list says which entry reverses which; the reversal asks for a
// confirmation first, since it posts and cannot be taken back (only reversed in turn).

import { useEffect, useRef, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, enc } from '../api.js'
import { formatTimestamp } from '../format.js'
import { Id } from '../ui.js'

/** "Reversed by …" / "Reverses …", and a Reverse button while the entry is not reversed. */
export function ReversalCell({ entry, onReverse }) {
  return html`<td>
    ${entry.reversed_by ? html`<span class="reversal">Reversed by <${Id} id=${entry.reversed_by} /></span>` : ''}
    ${entry.reverses ? html`<span class="reversal">Reverses <${Id} id=${entry.reverses} /></span>` : ''}
    ${entry.reversed_by ? '' : html` <button type="button" class="secondary" aria-label=${`Reverse entry ${entry.id}`} onClick=${() => onReverse(entry)}>Reverse</button>`}
  </td>`
}

/**
 * The confirmation: when the reversal takes effect (now, the API's default, or on the original's date, which
 * undoes it within its own period; a locked period refuses that) and an optional description.
 */
export function ReversePanel({ entry, act, zone, onDone }) {
  const [when, setWhen] = useState('now')
  const [description, setDescription] = useState('')
  const confirm = useRef(null)
  // The confirmation takes the focus, so the keyboard lands on it as the mouse does.
  useEffect(() => { confirm.current?.focus() }, [entry.id])
  const submit = async (event) => {
    event.preventDefault()
    const body = { ...(when === 'original' ? { effective_at: entry.effective_at } : {}), ...(description.trim() ? { description: description.trim() } : {}) }
    const done = await act((answer) => `Reversed ${entry.id} by ${answer.id}, effective ${formatTimestamp(answer.effective_at, zone)}.`,
      () => api('POST', `/v2/entries/${enc(entry.id)}/reverse`, { body }))
    if (done !== undefined) onDone()
  }
  return html`<form class="panel" onSubmit=${submit} aria-label=${`Reverse entry ${entry.id}`}>
    <p>Reverse entry ${entry.id}${entry.description ? ` (${entry.description})` : ''}? A new entry negates every line of it; this cannot be undone, only reversed in turn.</p>
    <label>Reversal effective <select value=${when} onChange=${(event) => setWhen(event.currentTarget.value)}>
      <option value="now">now</option><option value="original">on the original's date (${formatTimestamp(entry.effective_at, zone)})</option></select></label>
    <label>Reversal description (optional) <input value=${description} onInput=${(event) => setDescription(event.currentTarget.value)} /></label>
    <button type="submit" ref=${confirm}>Confirm reversal</button>
    <button type="button" class="secondary" onClick=${onDone}>Cancel</button>
  </form>`
}
