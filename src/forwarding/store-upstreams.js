'use strict'

// A store's own upstream LRSs (besides LRS_FORWARD_URLS), as the admin API
// (PUT /admin/stores/:id, forwardUrls) and `lrs store forward` set them.
// The running workers take a change within LRS_CREDENTIAL_POLL_MS.

const { parseUpstream, upstreamProblem, MAX_PER_STORE } = require('./upstreams')
const { sealUpstreamUrl } = require('./sealed-urls')

// What is wrong with a list of upstream URLs, or null. `nameOf(i)`: how
// the message names the i-th (the API's field, the CLI's line).
function upstreamListProblem (urls, nameOf) {
  if (urls.length > MAX_PER_STORE) return `at most ${MAX_PER_STORE} upstreams a store (got ${urls.length})`
  for (const [i, raw] of urls.entries()) {
    const problem = upstreamProblem(raw)
    if (problem) return `${nameOf(i)} ${problem}`
  }
  const names = urls.map((u) => parseUpstream(u).name)
  const twice = names.findIndex((name, i) => names.indexOf(name) !== i)
  if (twice >= 0) return `${nameOf(twice)} names the endpoint of ${nameOf(names.indexOf(names[twice]))} again`
  return null
}

// Replaces the store's upstreams with `urls` (checked), their credentials
// sealed (sealed-urls.js); what was queued for those it no longer has
// goes. false when there is no such store.
async function replaceStoreUpstreams (storage, store, urls, sealed) {
  const keep = new Set(urls.map((u) => parseUpstream(u, store.number).id))
  const dropUpstreams = (store.forwardUrls || []).map((u) => parseUpstream(u, store.number).id).filter((id) => !keep.has(id))
  return storage.stores.setForwarding({ id: store.id, urls: urls.map((u) => sealUpstreamUrl(u, sealed)), dropUpstreams })
}

module.exports = { upstreamListProblem, replaceStoreUpstreams }
