// Small shared pieces: error and status messages, amounts, state badges, empty states.

import { useState } from 'preact/hooks'
import { html } from './html.js'
import { formatAmount } from './format.js'
import { describeError } from './api.js'

/** An error as the API explained it; role=alert so a screen reader says it at once. */
export function Alert({ message }) {
  if (!message) return null
  return html`<div class="alert" role="alert">${message}</div>`
}

/** A polite announcement of what an action did. */
export function Status({ message }) {
  return html`<div class="status" role="status" aria-live="polite">${message ?? ''}</div>`
}

export function Amount({ minor, currency, strong }) {
  const classes = ['amount', minor < 0 ? 'negative' : '', minor === 0 ? 'zero' : '', strong ? 'strong' : ''].join(' ')
  return html`<span class=${classes}>${formatAmount(minor, currency)}</span>`
}

/**
 * A window's state. An open or balanced window whose residual is 0 while statement lines are still
 * unmatched is not done (the lines may net to zero, or their entries be in the books unmatched): it gets
 * its own badge and words, never the green "balanced" of a finished one. Pass `window` for that check.
 */
export function StateBadge({ state, window }) {
  const unmatched = window?.unmatched_lines_count ?? 0
  if (window !== undefined && window.residual === 0 && unmatched > 0 && (state === 'open' || state === 'balanced')) {
    return html`<span class="badge state-unfinished" title=${`Residual 0, but ${unmatched} statement line(s) are not matched yet`}>${state}, ${unmatched} unmatched</span>`
  }
  return html`<span class=${`badge state-${state}`}>${state}</span>`
}

/** Ids longer than this many characters are shown shortened. */
const idShownChars = 12

/** prefix…tail: the id's kind and the end of its sequence number, which is what differs within a workspace. */
export function shortId(id) {
  if (typeof id !== 'string' || id.length <= idShownChars) return id
  const prefix = /^[a-z]+_/.exec(id)?.[0] ?? ''
  return `${prefix}…${id.slice(-6)}`
}

async function copyText(text) {
  if (navigator.clipboard?.writeText) {
    try { await navigator.clipboard.writeText(text); return true } catch { /* fall back below */ }
  }
  // Without the clipboard API (an insecure origin): a selected textarea and the copy command.
  const area = Object.assign(document.createElement('textarea'), { value: text })
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.append(area)
  area.select()
  const copied = document.execCommand('copy')
  area.remove()
  return copied
}

/**
 * An id as a person reads it: shortened, the whole id on hover (title) and for screen readers, and a
 * copy control. `href` makes the shortened id a link.
 */
export function Id({ id, href }) {
  const [copied, setCopied] = useState(false)
  if (typeof id !== 'string' || id === '') return '—'
  const short = shortId(id)
  const shown = short === id ? id : html`<span aria-hidden="true">${short}</span><span class="visually-hidden">${id}</span>`
  const copy = async () => { setCopied(await copyText(id)); setTimeout(() => setCopied(false), 2000) }
  return html`<span class="id"><span class="id-text" title=${id} data-id=${id}>${href ? html`<a href=${href}>${shown}</a>` : shown}</span><button type="button" class="copy" title=${`Copy ${id}`} aria-label=${`Copy ${id}`} onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button></span>`
}

export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`
}

/** A write the workspace holds for a second person answers 202 {approval}: what to tell the user, or null. */
export function awaitingApproval(answer) {
  const approval = answer?.approval
  if (approval?.state !== 'pending') return null
  return `Awaiting approval: the ${actionWords(approval.action)} is held as ${approval.id} until another person approves it (Approvals page); nothing has changed yet.`
}

/** An approval's action in words (docs/API.md, Approvals). */
export function actionWords(action) {
  return { 'window.close': 'close', 'match.write_off': 'write-off' }[action] ?? String(action).replaceAll(/[._]/g, ' ')
}

/** Runs an async action, reporting its error through setError; returns its value or undefined. */
export async function attempt(setError, action) {
  setError(null)
  try {
    return await action()
  } catch (error) {
    setError(describeError(error))
    return undefined
  }
}
