'use strict'

// Signed statements (Data 2.6): a JWS in compact serialization, RS256/384/512,
// payload equivalent to the statement, verified against its x5c certificate.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { execFileSync } = require('node:child_process')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')

const SIGNATURE = 'http://adlnet.gov/expapi/attachments/signature'
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')

// A key and a self-signed certificate, made with the openssl command line.
function keyAndCertificate () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-sig-'))
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=xapi-test'], { stdio: 'ignore' })
    const key = crypto.createPrivateKey(fs.readFileSync(path.join(dir, 'key.pem')))
    const der = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'cert.pem'))).raw
    return { key, x5c: der.toString('base64') }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function sign (payload, { key, x5c }, alg = 'RS256') {
  const input = `${b64({ alg, x5c: [x5c] })}.${b64(payload)}`
  const signature = crypto.sign(`RSA-SHA${alg.slice(2)}`, Buffer.from(input), key).toString('base64url')
  return Buffer.from(`${input}.${signature}`)
}

async function postSigned (lrs, s, jws) {
  return postWithAttachments(lrs.client, [{ ...s, attachments: [attachmentOf(jws, { usageType: SIGNATURE })] }], [{ content: jws }])
}

let openssl = true
try { execFileSync('openssl', ['version'], { stdio: 'ignore' }) } catch { openssl = false }

test('a statement signed with RS256 or RS512 and an x5c certificate is stored; its signature comes back with it', { skip: !openssl && 'needs the openssl command' }, async () => {
  const lrs = await startLrs()
  const signer = keyAndCertificate()
  for (const alg of ['RS256', 'RS512']) {
    const s = statement({ id: crypto.randomUUID() })
    const jws = sign(s, signer, alg)
    const res = await postSigned(lrs, s, jws)
    assert.equal(res.status, 200, res.text)
    const got = await lrs.client(`/statements?statementId=${s.id}&attachments=true`)
    assert.ok(got.buffer.includes(jws), alg)
  }
})

test('a signature that does not verify, or signs another statement, is 400 and nothing is stored', { skip: !openssl && 'needs the openssl command' }, async () => {
  const lrs = await startLrs()
  const signer = keyAndCertificate()
  const s = statement({ id: crypto.randomUUID() })
  const good = sign(s, signer).toString()
  const tampered = Buffer.from(good.slice(0, good.lastIndexOf('.') + 1) + crypto.randomBytes(256).toString('base64url'))
  const other = sign(statement(), signer)
  for (const jws of [tampered, other]) {
    const res = await postSigned(lrs, s, jws)
    assert.equal(res.status, 400)
    assert.equal(res.json.code, 'LRS_ERR_SIGNATURE_INVALID')
  }
  assert.equal((await lrs.client(`/statements?statementId=${s.id}`)).status, 404)
})
