// Sign-in: an API key, checked against the API, then kept in sessionStorage only.

import { useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, describeError, session } from '../api.js'
import { Alert } from '../ui.js'

export function SignIn({ onSignedIn }) {
  const [key, setKey] = useState('')
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      // Any valid key may read its workspace (no scope needed): the key is checked and the zone known at once.
      const workspace = await api('GET', '/v2/workspace', { key: key.trim() })
      session.signIn(key.trim())
      onSignedIn(workspace)
    } catch (failure) {
      setError(describeError(failure))
    } finally {
      setBusy(false)
    }
  }
  return html`<section class="signin">
    <h1 tabindex="-1">Sign in to trueup</h1>
    <p>Paste an API key of your workspace (the one printed at first start, or one made with POST /admin/keys).
      It stays in this tab only (sessionStorage) and is sent as a bearer token.</p>
    <form onSubmit=${submit}>
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" required value=${key}
        onInput=${(event) => setKey(event.currentTarget.value)} />
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
    <${Alert} message=${error} />
  </section>`
}
