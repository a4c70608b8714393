'use strict'

// A store made through the admin API with an `all admin` credential of its
// own: { auth: [key, secret], xapi(path, options), admin(path, options) },
// the LRS's clients under that credential.

const assert = require('node:assert/strict')

async function storeWithAdmin (lrs, id) {
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store: id } })
  assert.equal(made.status, 201, made.text)
  const auth = [made.json.key, made.json.secret]
  return {
    auth,
    xapi: (path, options = {}) => lrs.client(path, { auth, ...options }),
    admin: (path, options = {}) => lrs.http(path, { auth, ...options })
  }
}

// POSTs statements through `client`; their ids (asserts 200).
async function postStatements (client, body) {
  const res = await client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  return res.json
}

module.exports = { storeWithAdmin, postStatements }
