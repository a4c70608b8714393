'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { multipart } = require('../helpers/multipart')

test('attachments (Communication 1.5.2)', async (t) => {
  const lrs = await startLrs()
  const xapi = lrs.client
  const content = Buffer.from([0, 1, 2, 255, 254, 10, 13, 10])
  const sha2 = crypto.createHash('sha256').update(content).digest('hex')
  const attachment = { usageType: 'http://example.com/usage', display: { 'en-US': 'bytes' }, contentType: 'application/octet-stream', length: content.length, sha2 }
  const boundary = 'b-' + crypto.randomUUID()
  const send = (parts, extra = {}) => xapi('/statements', { method: 'POST', body: multipart(parts, boundary), headers: { 'Content-Type': `multipart/mixed; boundary=${boundary}`, ...extra } })

  await t.test('a multipart/mixed statement with a binary attachment is stored and returned with attachments=true', async () => {
    const s = statement({ attachments: [attachment] })
    const res = await send([
      { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(s) },
      { headers: { 'Content-Type': 'application/octet-stream', 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha2 }, body: content }
    ])
    assert.equal(res.status, 200, res.text)
    const got = await xapi(`/statements?statementId=${res.json[0]}&attachments=true`)
    assert.match(got.headers.get('content-type'), /^multipart\/mixed; boundary=/)
    assert.ok(got.buffer.includes(content))
    assert.ok(got.text.includes(`X-Experience-API-Hash: ${sha2}`))
  })

  await t.test('an attachment without fileUrl sent as application/json is 400', async () => {
    const res = await xapi('/statements', { method: 'POST', body: statement({ attachments: [attachment] }) })
    assert.equal(res.status, 400)
  })

  await t.test('a part that matches no attachment, or base64 encoding, is 400', async () => {
    const s = statement({ attachments: [attachment] })
    const json = { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(s) }
    const undeclared = Buffer.from('bytes no attachment of the statement declares')
    const extra = await send([json, { headers: { 'X-Experience-API-Hash': sha2, 'Content-Transfer-Encoding': 'binary' }, body: content },
      { headers: { 'X-Experience-API-Hash': crypto.createHash('sha256').update(undeclared).digest('hex'), 'Content-Transfer-Encoding': 'binary' }, body: undeclared }])
    assert.equal(extra.status, 400)
    assert.match(extra.json.message, /matches no attachment/)
    const wrongHash = await send([json, { headers: { 'X-Experience-API-Hash': 'ab'.repeat(32), 'Content-Transfer-Encoding': 'binary' }, body: content }])
    assert.equal(wrongHash.status, 400)
    const base64 = await send([json, { headers: { 'X-Experience-API-Hash': sha2, 'Content-Transfer-Encoding': 'base64' }, body: content.toString('base64') }])
    assert.equal(base64.status, 400)
    const tampered = await send([json, { headers: { 'X-Experience-API-Hash': sha2, 'Content-Transfer-Encoding': 'binary' }, body: Buffer.from('not the bytes the hash names') }])
    assert.equal(tampered.status, 400)
    assert.match(tampered.json.message, /does not match/)
  })

  await t.test('multipart/mixed with only fileUrl attachments is accepted (2.0)', async () => {
    const s = statement({ attachments: [{ ...attachment, fileUrl: 'http://example.com/file.bin' }] })
    const res = await send([{ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(s) }], { 'X-Experience-API-Version': '2.0.0' })
    assert.equal(res.status, 200)
  })
})
