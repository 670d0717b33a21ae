// Matching proposals (docs/API.md, Matching help: proposals, dry runs, batches): each accepted as given, or all in one batch (all or nothing, one
// log record); and the audit-pack exports (docs/API.md, Exports), downloaded with the key as bearer token.

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, describeError, enc } from '../api.js'
import { Alert, Empty } from '../ui.js'

export function Proposals({ window, data, act }) {
  const [proposals, setProposals] = useState(null)
  const [error, setError] = useState(null)
  // Read again whenever the window is (after an action, a live update, Refresh): proposals follow what is
  // unmatched. An answer overtaken by a newer read is dropped.
  useEffect(() => {
    let latest = true
    setError(null)
    api('GET', `/v2/reconciliations/${enc(window.id)}/proposals`).then((page) => latest && setProposals(page.data), (failure) => latest && setError(describeError(failure)))
    return () => { latest = false }
  }, [data])
  const bodyOf = (proposal) => ({ statement_lines: proposal.statement_lines, entries: proposal.entries, strategy: proposal.strategy, date_tolerance_days: proposal.date_tolerance_days })
  const accept = (proposal) => act((answer) => `Accepted the proposal as ${answer.id}.`, () => api('POST', `/v2/reconciliations/${enc(window.id)}/matches`, { body: bodyOf(proposal) }))
  // All or nothing, one log record (docs/API.md, Matching help: proposals, dry runs, batches): no line or entry is in two proposals of one answer.
  const acceptAll = () => act((answer) => `Accepted ${answer.data.length} proposals.`, () => api('POST', `/v2/reconciliations/${enc(window.id)}/matches/batch`, { body: { matches: proposals.map(bodyOf) } }))
  return html`<section aria-labelledby="proposals-heading">
    <h2 id="proposals-heading">Proposals</h2><${Alert} message=${error} />
    ${proposals === null ? html`<p>Loading…</p>` : proposals.length === 0 ? html`<${Empty}>No proposal: nothing unmatched nets to zero.<//>` : html`<ul class="proposals">
      ${proposals.map((proposal) => html`<li>
        lines ${proposal.statement_lines.join(', ')} ↔ entries ${proposal.entries.join(', ')} · score ${proposal.score.toFixed(2)} · ${proposal.reasons.join(', ')}
        <button type="button" onClick=${() => accept(proposal)} aria-label=${`Accept proposal: lines ${proposal.statement_lines.join(', ')}`}>Accept</button>
      </li>`)}</ul>
      ${proposals.length > 1 && html`<button type="button" onClick=${acceptAll}>Accept all ${proposals.length} proposals</button>`}`}
  </section>`
}

async function download(window, format, setError) {
  setError(null)
  try {
    const response = await api('GET', `/v2/reconciliations/${enc(window.id)}/export?format=${format}`, { binary: true })
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `${window.id}.${format}`
    const url = URL.createObjectURL(await response.blob())
    const anchor = Object.assign(document.createElement('a'), { href: url, download: name })
    document.body.append(anchor)
    anchor.click()
    anchor.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
  } catch (failure) {
    setError(describeError(failure))
  }
}

export function Exports({ window }) {
  const [error, setError] = useState(null)
  return html`<section aria-labelledby="exports-heading">
    <h2 id="exports-heading">Exports</h2>
    <p>The audit pack of this window${window.seal ? ', with its seal' : ''}.</p>
    ${['json', 'csv', 'pdf'].map((format) => html`<button type="button" class="secondary" onClick=${() => download(window, format, setError)}>Download ${format.toUpperCase()}</button> `)}
    <${Alert} message=${error} />
  </section>`
}

