// Small shared pieces: error and status messages, amounts, state badges, empty states.

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

export function StateBadge({ state }) {
  return html`<span class=${`badge state-${state}`}>${state}</span>`
}

export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`
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
