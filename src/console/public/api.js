// The console's only way to the LRS: the same /xapi and /admin APIs every
// client uses, with HTTP Basic credentials. The credential lives in this
// module's memory only (no localStorage, no sessionStorage, no cookie):
// a reload forgets it, and no other page or tab can read it.

let credential = null
// The store chosen in the header (X-LRS-Store, for a credential with
// stores/admin); null: the credential's own.
let store = null

export function signIn (key, secret) { credential = { key, secret } }
export function signOut () { credential = null; store = null }
export function chooseStore (id) { store = id || null }
export function signedInKey () { return credential && credential.key }

function basic ({ key, secret }) {
  const bytes = new TextEncoder().encode(`${key}:${secret}`)
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return 'Basic ' + btoa(binary)
}

export class ApiError extends Error {
  constructor (status, body) {
    super(body && body.message ? `${body.message} (${status})` : `the LRS answered ${status}`)
    this.status = status
    this.code = body && body.code
    this.detail = (body && body.message) || null // the LRS's words alone
  }
}

// api('/admin/credentials', { method, query: {…}, body }) -> parsed JSON (or null);
// with asText (GET /metrics) the text of the answer
export async function api (path, { method = 'GET', query, body, auth = credential, asText = false } = {}) {
  const url = new URL(path, window.location.origin)
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== '') url.searchParams.set(k, v)
  const headers = { 'X-Experience-API-Version': '2.0.0' }
  if (auth) headers.Authorization = basic(auth)
  if (auth && store) headers['X-LRS-Store'] = store
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' })
  const text = await res.text()
  if (asText && res.ok) return text
  let json = null
  try { json = text ? JSON.parse(text) : null } catch {}
  if (!res.ok) throw new ApiError(res.status, json)
  return json
}
