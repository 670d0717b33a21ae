// The console's only way to the server: same origin, the key as a bearer token, errors carrying the API's message.

const keyStorageName = 'trueup.apiKey'

/** The key lives in sessionStorage only: gone when the tab closes, never in localStorage or a cookie. */
export const session = {
  key: () => sessionStorage.getItem(keyStorageName),
  signIn: (key) => sessionStorage.setItem(keyStorageName, key),
  signOut: () => sessionStorage.removeItem(keyStorageName),
}

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message)
    this.status = status
    this.code = code
    this.details = details ?? []
  }
}

/** The message a person reads: the API's own, with the details' paths when it gives them. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return error?.message ?? String(error)
  const details = error.details.map((detail) => detail.path ? `${detail.path}: ${detail.message}` : detail.message)
  return details.length === 0 ? error.message : `${error.message} (${details.join('; ')})`
}

async function parseBody(response) {
  const text = await response.text()
  if (text === '') return null
  try { return JSON.parse(text) } catch { return text }
}

/** One call; throws ApiError with the API's code and message for any non-2xx. */
export async function api(method, path, options = {}) {
  const headers = { ...options.headers }
  const key = options.key ?? session.key()
  if (key) headers.authorization = `Bearer ${key}`
  let body = options.raw
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] = 'application/json'
  }
  let response
  try {
    response = await fetch(path, { method, headers, body })
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Check that trueup is running and try again.')
  }
  if (options.binary === true && response.ok) return response
  const parsed = await parseBody(response)
  if (!response.ok) {
    const error = parsed?.error
    if (error?.message) throw new ApiError(response.status, error.code, error.message, error.details)
    throw new ApiError(response.status, 'http', `The server answered ${response.status} ${response.statusText} without an explanation.`)
  }
  return parsed
}

/** Every page of a list, up to itemsMax items (the console shows a window's lines and entries whole). */
export async function listAll(path, itemsMax = 10_000) {
  const items = []
  let cursor = null
  const separator = path.includes('?') ? '&' : '?'
  do {
    const page = await api('GET', `${path}${separator}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
    items.push(...page.data)
    cursor = page.next_cursor
  } while (cursor !== null && items.length < itemsMax)
  return items
}

export const enc = encodeURIComponent
