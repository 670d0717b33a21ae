// Matching proposals (docs/API.md, Matching help: proposals, dry runs, batches), each with both sides' dates,
// amounts and descriptions, the rule that made it (when it names one) and its reasons: each accepted as given, or all in one batch (all or nothing, one
// log record); and the audit-pack exports (docs/API.md, Exports), downloaded with the key as bearer token.

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, describeError, enc, listAll } from '../api.js'
import { entryAmountFor, formatDate, formatTimestamp } from '../format.js'
import { Alert, Amount, Empty, Id } from '../ui.js'

/** The rule a proposal names (docs/API.md, Matching rules): its name when the rules are known, else its id. */
function RuleName({ rule, rules }) {
  if (rule === undefined || rule === null) return null
  const id = typeof rule === 'object' ? rule.id : rule
  const name = (typeof rule === 'object' ? rule.name : undefined) ?? rules.get(id)?.name
  return html`<span class="tag">rule: ${name ?? html`<${Id} id=${id} />`}</span>`
}

/** One side of a proposal: each line or entry with its date, amount and description. */
function Side({ title, items, currency }) {
  return html`<div><h3>${title}</h3><ul>${items.map((item) => html`<li>
    <${Id} id=${item.id} /> · ${item.date} · <${Amount} minor=${item.amount} currency=${currency} />${item.text ? html` · ${item.text}` : ''}
  </li>`)}</ul></div>`
}

function ProposalCard({ proposal, window, data, zone, rules, onAccept }) {
  const lines = new Map(data.lines.map((line) => [line.id, line]))
  const entries = new Map(data.entries.map((entry) => [entry.id, entry]))
  const lineItems = proposal.statement_lines.map((id) => {
    const line = lines.get(id)
    return { id, date: line ? formatDate(line.date) : '—', amount: line?.amount, text: [line?.reference, line?.description, line?.counterparty?.name].filter(Boolean).join(' · ') }
  })
  const entryItems = proposal.entries.map((id) => {
    const entry = entries.get(id)
    return { id, date: entry ? formatTimestamp(entry.effective_at, zone) : '—', amount: entry ? entryAmountFor(entry, window.accounts) : undefined, text: entry?.description ?? '' }
  })
  return html`<li class="proposal">
    <div class="sides">
      <${Side} title="Statement lines" items=${lineItems} currency=${window.currency} />
      <${Side} title="Entries" items=${entryItems} currency=${window.currency} />
    </div>
    <div class="why">
      <span>score ${proposal.score.toFixed(2)}</span>
      <${RuleName} rule=${proposal.rule} rules=${rules} />
      <span>reasons: ${proposal.reasons.map((reason) => html`<span class="tag">${reason.replaceAll('_', ' ')}</span> `)}</span>
      <button type="button" onClick=${onAccept} aria-label=${`Accept proposal: lines ${proposal.statement_lines.join(', ')}`}>Accept</button>
    </div>
  </li>`
}

/** The workspace's rules by id, so a proposal that names one shows its name; without recon rules access, ids. */
function useRules() {
  const [rules, setRules] = useState(new Map())
  useEffect(() => { listAll('/v2/matching-rules').then((list) => setRules(new Map(list.map((rule) => [rule.id, rule]))), () => setRules(new Map())) }, [])
  return rules
}

export function Proposals({ window, data, act, zone }) {
  const [proposals, setProposals] = useState(null)
  const [error, setError] = useState(null)
  const rules = useRules()
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
      ${proposals.map((proposal) => html`<${ProposalCard} proposal=${proposal} window=${window} data=${data} zone=${zone} rules=${rules} onAccept=${() => accept(proposal)} />`)}</ul>
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

