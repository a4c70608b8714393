'use strict'

// What both engines store of a document besides its key, content and
// time (each keeps those in its own types): the fields it is listed,
// deleted and erased by.
function documentFields (key, value) {
  return {
    resource: key.resource,
    scope: key.scope,
    registration: key.registration || null,
    docId: key.docId,
    agent: key.agent || null,
    contentType: value.contentType,
    etag: value.etag
  }
}

module.exports = { documentFields }
