'use strict'

// Statement bodies on disk: deflated with a preset dictionary of the words
// every xAPI statement repeats (property names, ADL verbs and activity
// types), which a body of 2 KB is too short to teach the compressor by
// itself. Measured on the bench's 2,027-byte statements: 866 bytes
// deflated alone, 631 with this dictionary; about 25 us to deflate and 9
// to inflate one on the 2-core VM. The deflating is done by whoever sends
// the write (storage/sqlite/statements.js, a worker), never by the writer,
// which is one for all cores. Each process reuses one zlib stream for each
// direction (lib/reused-zlib.js): half the cost of inflating.
//
// A packed body is a BLOB: its first byte says how it was packed. A body
// stored as TEXT (schema 6 and before, or one that deflating did not make
// smaller) is read as it is, so a store is upgraded without rewriting it.

const zlib = require('node:zlib')
const { reusedZlib } = require('../../lib/reused-zlib')

// Version 1's dictionary. Never change it: bodies packed with it are read
// with it. A better one is version 2, with its own byte.
const DICTIONARY_V1 = Buffer.from([
  '"mbox_sha1sum":"', '"openid":"', '"member":[', '"objectType":"Group"', '"objectType":"SubStatement"',
  '"objectType":"StatementRef"', '"instructor":{', '"team":{', '"attachments":[{"usageType":"', '"contentType":"',
  '"length":', '"sha2":"', '"fileUrl":"', '"moreInfo":"', '"steps":[', '"source":[', '"target":[', '"scale":[',
  '"interactionType":"choice"', '"interactionType":"', '"correctResponsesPattern":["', '"choices":[{"id":"',
  'http://adlnet.gov/expapi/activities/cmi.interaction', 'http://adlnet.gov/expapi/activities/course',
  'http://adlnet.gov/expapi/activities/module', 'http://adlnet.gov/expapi/activities/assessment',
  'http://adlnet.gov/expapi/activities/lesson', 'http://adlnet.gov/expapi/activities/question',
  'http://adlnet.gov/expapi/activities/media', 'http://adlnet.gov/expapi/activities/profile',
  'https://w3id.org/xapi/cmi5/context/categories/moveon', 'https://w3id.org/xapi/cmi5/context/categories/cmi5',
  'https://w3id.org/xapi/cmi5/context/extensions/sessionid', 'https://w3id.org/xapi/cmi5/result/extensions/progress',
  'https://w3id.org/xapi/adl/verbs/satisfied', 'https://w3id.org/xapi/adl/verbs/waived', 'https://w3id.org/xapi/adl/verbs/abandoned',
  'https://w3id.org/xapi/scorm', 'https://w3id.org/xapi/video/verbs/played', 'https://w3id.org/xapi/video/verbs/paused',
  'http://id.tincanapi.com/activitytype/', 'http://id.tincanapi.com/extension/', 'http://id.tincanapi.com/verb/',
  'http://adlnet.gov/expapi/verbs/launched', 'http://adlnet.gov/expapi/verbs/initialized', 'http://adlnet.gov/expapi/verbs/terminated',
  'http://adlnet.gov/expapi/verbs/suspended', 'http://adlnet.gov/expapi/verbs/resumed', 'http://adlnet.gov/expapi/verbs/scored',
  'http://adlnet.gov/expapi/verbs/voided', 'http://adlnet.gov/expapi/verbs/interacted', 'http://adlnet.gov/expapi/verbs/attended',
  'http://adlnet.gov/expapi/verbs/experienced', 'http://adlnet.gov/expapi/verbs/attempted', 'http://adlnet.gov/expapi/verbs/progressed',
  'http://adlnet.gov/expapi/verbs/answered', 'http://adlnet.gov/expapi/verbs/failed', 'http://adlnet.gov/expapi/verbs/passed',
  'http://adlnet.gov/expapi/verbs/completed',
  '"result":{"score":{"scaled":', ',"raw":', ',"min":0,"max":', '"success":false', '"success":true,"completion":true',
  '"response":"', '"duration":"PT', '"extensions":{"https://', '"extensions":{"http://',
  '"context":{"registration":"', '"revision":"', '"platform":"', '"language":"en-US"', '"statement":{"objectType":"StatementRef","id":"',
  '"contextActivities":{"parent":[{"id":"', '"grouping":[{"id":"', '"category":[{"id":"', '"other":[{"id":"',
  '"objectType":"Activity","definition":{"type":"', '"objectType":"Activity"}]',
  '"timestamp":"20', '"stored":"20', '"authority":{"objectType":"Agent","name":"', '"version":"1.0.0"}', '"version":"2.0.0"}',
  '"actor":{"objectType":"Agent","name":"', '"mbox":"mailto:', '"account":{"homePage":"https://', '","name":"',
  '"verb":{"id":"http://adlnet.gov/expapi/verbs/', '"display":{"en-US":"',
  '"object":{"objectType":"Activity","id":"https://', '"definition":{"name":{"en-US":"', '"description":{"en-US":"', '"type":"http://adlnet.gov/expapi/activities/',
  '{"id":"'
].join(''))

const V1 = 1
const DEFLATE_V1 = { level: 3, windowBits: 12, memLevel: 4, dictionary: DICTIONARY_V1 }
const INFLATE_V1 = { dictionary: DICTIONARY_V1 }

const deflateV1 = reusedZlib(zlib.createDeflateRaw, zlib.deflateRawSync, DEFLATE_V1)
const inflateV1 = reusedZlib(zlib.createInflateRaw, zlib.inflateRawSync, INFLATE_V1)

// The statement's JSON text -> what is stored: a BLOB, or the text itself
// when deflating would not make it smaller.
function packBody (text) {
  const bytes = Buffer.from(text)
  const packed = deflateV1(bytes)
  if (packed.length + 1 >= bytes.length) return text
  const out = Buffer.allocUnsafe(packed.length + 1)
  out[0] = V1
  packed.copy(out, 1)
  return out
}

// What is stored -> the statement's JSON text.
function unpackBody (stored) {
  if (typeof stored === 'string') return stored
  if (stored[0] !== V1) throw new Error(`statement body packed with unknown format ${stored[0]}`)
  return inflateV1(stored, 1).toString('utf8')
}

module.exports = { packBody, unpackBody, DICTIONARY_V1 }
