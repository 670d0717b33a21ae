// Statement upload (POST /v2/statements, docs/API.md, Bank statement formats): a camt.053, MT940 or BAI2 file opens windows.
// The file goes as it is, its format named by Content-Type from its extension (the server also recognises it from the content).

import { useState } from 'preact/hooks'
import { html } from '../html.js'
import { api, describeError, enc } from '../api.js'
import { Alert, Status } from '../ui.js'

function contentTypeOf(file) {
  const name = file.name.toLowerCase()
  if (name.endsWith('.xml')) return 'application/xml'
  if (name.endsWith('.sta') || name.endsWith('.mt940') || name.endsWith('.940')) return 'application/x-mt940'
  if (name.endsWith('.bai') || name.endsWith('.bai2')) return 'application/x-bai2'
  return 'application/octet-stream'
}

export function StatementUpload({ onUploaded }) {
  const [file, setFile] = useState(null)
  const [label, setLabel] = useState('')
  const [error, setError] = useState(null)
  const [status, setStatus] = useState(null)
  const submit = async (event) => {
    event.preventDefault()
    setError(null)
    if (file === null) return setError('Choose a statement file first.')
    try {
      const query = label.trim() === '' ? '' : `?label=${enc(label.trim())}`
      const answer = await api('POST', `/v2/statements${query}`, { raw: await file.arrayBuffer(), headers: { 'content-type': contentTypeOf(file) } })
      setStatus(`${answer.statements} statement(s) read: opened ${answer.data.map((window) => window.label).join(', ')}.`)
      onUploaded()
    } catch (failure) {
      setError(describeError(failure))
    }
  }
  return html`<section class="panel" aria-labelledby="upload-heading">
    <h2 id="upload-heading">Upload a bank statement</h2>
    <form onSubmit=${submit}>
      <label>Statement file (camt.053, MT940, BAI2)
        <input type="file" accept=".xml,.sta,.mt940,.940,.bai,.bai2,.txt" onChange=${(event) => setFile(event.currentTarget.files[0] ?? null)} /></label>
      <label>Label (optional) <input value=${label} onInput=${(event) => setLabel(event.currentTarget.value)} /></label>
      <button type="submit">Upload and open windows</button>
    </form>
    <${Alert} message=${error} /><${Status} message=${status} />
  </section>`
}
