// Pending approvals (docs/API.md, Approvals): a close or write-off that the workspace's settings hold for a
// second person. A key with recon:approve approves (the action then runs against the window as it is now,
// and may fail with its own error) or rejects with a reason; the key that asked cannot decide (403).

import { useEffect, useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, describeError, enc, listAll } from '../api.js'
import { formatAmount, formatTimestamp } from '../format.js'
import { Alert, Empty, Id, Status, actionWords, attempt } from '../ui.js'

/** What is asked, in words: the action, what it carries and what made it wait (docs/API.md, Approvals). */
function describeAction(approval, window) {
  const params = approval.params ?? {}
  const parts = []
  if (Array.isArray(params.statement_lines)) parts.push(`lines ${params.statement_lines.join(', ')}`)
  if (params.reason) parts.push(`reason: ${params.reason}`)
  if (params.lock_period === true) parts.push('locking the period')
  const trigger = approval.trigger
  if (trigger) {
    const amount = formatAmount(trigger.amount, window?.currency)
    parts.push(trigger.setting === 'close_with_residual' ? `residual ${amount}` : `${amount} over the limit of ${formatAmount(trigger.threshold, window?.currency)}`)
  }
  return parts.length === 0 ? actionWords(approval.action) : `${actionWords(approval.action)} (${parts.join('; ')})`
}

/** The windows the approvals act on, read once each: their label and currency. */
async function windowsOf(approvals) {
  const ids = [...new Set(approvals.map((approval) => approval.window).filter(Boolean))]
  const read = await Promise.all(ids.map((id) => api('GET', `/v2/reconciliations/${enc(id)}`).catch(() => null)))
  return new Map(read.filter(Boolean).map((window) => [window.id, window]))
}

function RejectForm({ approval, onDone, onCancel }) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState(null)
  const submit = async (event) => {
    event.preventDefault()
    const done = await attempt(setError, () => api('POST', `/v2/approvals/${enc(approval.id)}/reject`, { body: { reason: reason.trim() } }))
    if (done !== undefined) onDone(`Rejected ${approval.id}.`)
  }
  return html`<form class="panel" onSubmit=${submit} aria-label=${`Reject ${approval.id}`}>
    <label>Reason for rejecting <input required maxlength="500" value=${reason} onInput=${(event) => setReason(event.currentTarget.value)} /></label>
    <button type="submit" class="danger">Reject</button><button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    <${Alert} message=${error} />
  </form>`
}

function ApprovalRow({ approval, window, zone, rejecting, setRejecting, approve, onDone }) {
  return html`<tr>
    <th scope="row"><${Id} id=${approval.id} /></th><td>${describeAction(approval, window)}</td>
    <td>${window?.label ? html`<a href=${`#/windows/${enc(approval.window)}`}>${window.label}</a>` : html`<${Id} id=${approval.window} href=${`#/windows/${enc(approval.window)}`} />`}</td>
    <td>${approval.requested_by_name ?? html`<${Id} id=${approval.requested_by} />`}</td><td>${formatTimestamp(approval.requested_at, zone)}</td>
    <td>${rejecting === approval.id ? html`<${RejectForm} approval=${approval} onDone=${onDone} onCancel=${() => setRejecting(null)} />` : html`<div class="actions">
      <button type="button" aria-label=${`Approve ${approval.id}`} onClick=${() => approve(approval)}>Approve</button>
      <button type="button" class="secondary" aria-label=${`Reject ${approval.id}`} onClick=${() => setRejecting(approval.id)}>Reject…</button></div>`}</td>
  </tr>`
}

export function ApprovalsPage({ zone }) {
  const [approvals, setApprovals] = useState(null)
  const [windows, setWindows] = useState(new Map())
  const [error, setError] = useState(null)
  const [status, setStatus] = useState(null)
  const [rejecting, setRejecting] = useState(null)
  // Re-reads the list without clearing the message of the decision just made (an approve refused, say).
  const load = async () => {
    try {
      const list = await listAll('/v2/approvals?state=pending')
      setWindows(await windowsOf(list))
      setApprovals(list)
    } catch (failure) {
      setError(describeError(failure))
    }
  }
  useEffect(() => { load() }, [])
  const onDone = async (message) => { setRejecting(null); await load(); setStatus(message) }
  const approve = async (approval) => {
    setStatus(null)
    const done = await attempt(setError, () => api('POST', `/v2/approvals/${enc(approval.id)}/approve`))
    // Approved or failed with the action's own error: either way the list is read again.
    await load()
    if (done !== undefined) setStatus(`Approved ${approval.id}: the ${actionWords(approval.action)} ran.`)
  }
  return html`<section>
    <h1 tabindex="-1">Pending approvals</h1>
    <p class="meta">Closes and write-offs held for a second person. Approving runs the action against the window as it is now.</p>
    <${Alert} message=${error} /><${Status} message=${status} />
    ${approvals === null ? (error ? '' : html`<p>Loading…</p>`) : approvals.length === 0 ? html`<${Empty}>Nothing awaits approval.<//>` : html`<table class="list">
      <caption class="visually-hidden">Pending approvals</caption>
      <thead><tr><th scope="col">Approval</th><th scope="col">Action</th><th scope="col">Window</th><th scope="col">Requested by</th><th scope="col">Requested</th><th scope="col">Decide</th></tr></thead>
      <tbody>${approvals.map((approval) => html`<${ApprovalRow} approval=${approval} window=${windows.get(approval.window)} zone=${zone} rejecting=${rejecting} setRejecting=${setRejecting} approve=${approve} onDone=${onDone} />`)}</tbody>
    </table>`}
  </section>`
}
