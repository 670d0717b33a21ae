// Matching proposals (CONTRACT.md 11) and the audit-pack exports (CONTRACT.md 14): shown only when the
// server has their routes, and hidden when such a route answers 404 (not built on this server).

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { ApiError, api, describeError, enc } from '../api.js'
import { Alert, Empty } from '../ui.js'

const routeMissing = (error) => error instanceof ApiError && error.status === 404 && error.code === 'not_found'

export function Proposals({ window, data, act, capabilities }) {
  const [proposals, setProposals] = useState(null)
  const [error, setError] = useState(null)
  const [missing, setMissing] = useState(false)
  const [batchMissing, setBatchMissing] = useState(false)
  useEffect(() => {
    api('GET', `/v2/reconciliations/${enc(window.id)}/proposals`).then((page) => setProposals(page.data), (failure) => {
      if (routeMissing(failure)) setMissing(true)
      else setError(describeError(failure))
    })
  }, [data])
  if (missing) return null
  const bodyOf = (proposal) => ({ statement_lines: proposal.statement_lines, entries: proposal.entries, strategy: proposal.strategy, date_tolerance_days: proposal.date_tolerance_days })
  const accept = (proposal) => act((answer) => `Accepted the proposal as ${answer.id}.`, () => api('POST', `/v2/reconciliations/${enc(window.id)}/matches`, { body: bodyOf(proposal) }))
  // All or nothing, one log record (CONTRACT.md 11), when the server has the batch route.
  const acceptAll = () => act((answer) => `Accepted ${answer.data.length} proposals.`, async () => {
    try {
      return await api('POST', `/v2/reconciliations/${enc(window.id)}/matches/batch`, { body: { matches: proposals.map(bodyOf) } })
    } catch (failure) {
      if (!routeMissing(failure)) throw failure
      setBatchMissing(true)
      return undefined
    }
  })
  return html`<section aria-labelledby="proposals-heading">
    <h2 id="proposals-heading">Proposals</h2><${Alert} message=${error} />
    ${proposals === null ? html`<p>Loading…</p>` : proposals.length === 0 ? html`<${Empty}>No proposal: nothing unmatched nets to zero.<//>` : html`<ul class="proposals">
      ${proposals.map((proposal) => html`<li>
        lines ${proposal.statement_lines.join(', ')} ↔ entries ${proposal.entries.join(', ')} · score ${proposal.score.toFixed(2)} · ${proposal.reasons.join(', ')}
        <button type="button" onClick=${() => accept(proposal)} aria-label=${`Accept proposal: lines ${proposal.statement_lines.join(', ')}`}>Accept</button>
      </li>`)}</ul>
      ${capabilities.batch && !batchMissing && proposals.length > 1 && html`<button type="button" onClick=${acceptAll}>Accept all ${proposals.length} proposals</button>`}`}
  </section>`
}

async function download(window, format, setError, setMissing) {
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
    if (routeMissing(failure)) setMissing(true)
    else setError(describeError(failure))
  }
}

export function Exports({ window }) {
  const [error, setError] = useState(null)
  const [missing, setMissing] = useState(false)
  if (missing) return null
  return html`<section aria-labelledby="exports-heading">
    <h2 id="exports-heading">Exports</h2>
    <p>The audit pack of this window${window.seal ? ', with its seal' : ''}.</p>
    ${['json', 'csv', 'pdf'].map((format) => html`<button type="button" class="secondary" onClick=${() => download(window, format, setError, setMissing)}>Download ${format.toUpperCase()}</button> `)}
    <${Alert} message=${error} />
  </section>`
}

