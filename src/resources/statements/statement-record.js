'use strict'

// Turns a validated statement into what the write path stores: the
// statement as it will be returned, and its storage document.

const crypto = require('node:crypto')
const { toUtcTimestamp } = require('../../validation/formats')
const { VOIDED_VERB } = require('../../validation/statement-rules')
const { queryFields } = require('./query-fields')
const { authorityKey: authorityKeyOf } = require('../agents/agent-keys')
const { reportFields } = require('./report-fields')
const { mapContextActivities, contextActivitiesAreArrays } = require('../../validation/context-activities')

// Data 2.4.6.2.s4.b3: context activities are returned as arrays even when
// a single object was sent.
function withContextActivityArrays (s) {
  if (contextActivitiesAreArrays(s.context)) return s
  return { ...s, context: { ...s.context, contextActivities: mapContextActivities(s.context.contextActivities) } }
}

// The client's own text can be stored as it is, with the LRS's properties
// appended, when none of them is there already and nothing in it needs
// normalising. Otherwise the statement is serialised again.
function keepsClientText (s) {
  return s.stored === undefined && s.authority === undefined &&
    (s.id === undefined || s.id === s.id.toLowerCase()) &&
    (s.timestamp === undefined || toUtcTimestamp(s.timestamp) === s.timestamp) &&
    contextActivitiesAreArrays(s.context) &&
    (s.object.objectType !== 'SubStatement' || contextActivitiesAreArrays(s.object.context))
}

function defaultVersion (xapiVersion) {
  return xapiVersion === '2.0.0' ? '2.0.0' : '1.0.0'
}

// `text` ends with the statement's closing brace; a valid statement has
// properties, so what is appended starts with a comma.
function appendLrsProperties (text, s, { id, authorityJson, xapiVersion }) {
  let added = ''
  if (s.id === undefined) added += `,"id":"${id}"`
  added += `,"authority":${authorityJson}`
  if (s.version === undefined) added += `,"version":"${defaultVersion(xapiVersion)}"`
  return text.slice(0, text.lastIndexOf('}')) + added + '}'
}

function serialize (statement, { id, authority, xapiVersion }) {
  const s = withContextActivityArrays({ id, ...statement })
  s.id = id
  if (s.object.objectType === 'SubStatement') s.object = withContextActivityArrays(s.object)
  if (statement.timestamp) s.timestamp = toUtcTimestamp(statement.timestamp)
  delete s.stored
  s.authority = authority
  s.version = statement.version || defaultVersion(xapiVersion)
  return JSON.stringify(s)
}

function attachmentHashes (s) {
  const list = []
  for (const a of s.attachments || []) list.push(a.sha2.toLowerCase())
  if (s.object.objectType === 'SubStatement') for (const a of s.object.attachments || []) list.push(a.sha2.toLowerCase())
  return list
}

// Data 2.4: the LRS sets id if absent, authority (from the credential),
// version if absent, stored, and timestamp = stored if absent (2.0
// §4.2.4.2). Timestamps are kept in UTC (2.0 §4.2.7). `stored` is given
// when the batch is written, so the body holds neither it nor a defaulted
// timestamp: readers append both (see withStored). `text` is the
// statement's JSON as the client sent it, when known.
function toRecord (statement, { authority, xapiVersion, authorityJson = JSON.stringify(authority), authorityKey = authorityKeyOf(authority) }, text) {
  const id = statement.id ? statement.id.toLowerCase() : crypto.randomUUID()
  const parts = { id, authority, authorityJson, xapiVersion }
  const body = text !== undefined && keepsClientText(statement) ? appendLrsProperties(text, statement, parts) : serialize(statement, parts)
  const object = statement.object
  const ref = object.objectType === 'StatementRef' ? object.id.toLowerCase() : null
  // The record keeps what storage needs only: the parsed statement can be
  // collected while the batch waits (the rare conflict check re-reads the
  // body), which keeps batch data out of the old generation.
  return {
    id,
    // An id made here, a random UUID (122 random bits), is stored nowhere:
    // the store need not look for it. At 10 M statements looking up an id
    // in every index level cost the SQLite writer about 17 of its 83 us
    // per statement (random pages of the largest levels).
    newId: statement.id === undefined,
    xapiVersion,
    body,
    timestampFromStored: statement.timestamp === undefined,
    voiding: statement.verb.id === VOIDED_VERB,
    ref,
    authorityKey, // for credentials limited to statements/read/mine
    attachments: attachmentHashes(statement),
    ...queryFields(statement, authority),
    ...reportFields(statement)
  }
}

// The record of a statement as a store keeps it: `body` is its stored
// text (with id, authority and version, without `stored`), taken as it is,
// so another engine stores it again byte for byte (lrs migrate,
// src/transfer/migrate.js); `statement` is that text parsed.
function storedRecord (statement, { body, timestampFromStored }) {
  const authority = statement.authority
  const object = statement.object
  return {
    id: statement.id,
    newId: false,
    xapiVersion: typeof statement.version === 'string' && statement.version.startsWith('2.') ? '2.0.0' : '1.0.3',
    body,
    timestampFromStored,
    voiding: statement.verb.id === VOIDED_VERB,
    ref: object.objectType === 'StatementRef' ? object.id.toLowerCase() : null,
    authorityKey: authorityKeyOf(authority),
    attachments: attachmentHashes(statement),
    ...queryFields(statement, authority),
    ...reportFields(statement)
  }
}

// The statement as returned: its stored body with `stored` (and the
// timestamp the LRS set to it) appended.
function withStored ({ body, stored, timestampFromStored }) {
  const iso = stored.toISOString()
  return body.slice(0, -1) + (timestampFromStored ? `,"timestamp":"${iso}"` : '') + `,"stored":"${iso}"}`
}

module.exports = { toRecord, withStored, storedRecord }
