'use strict'

// What both engines store of a document besides its key, content and
// time (each keeps those in its own types): the fields it is listed,
// deleted and erased by (a store's deletion finds them by `store`).
function documentFields (key, value) {
  return {
    resource: key.resource,
    scope: key.scope,
    registration: key.registration || null,
    docId: key.docId,
    agent: key.agent || null,
    store: key.store || null, // its store's number; null: the default store
    contentType: value.contentType,
    etag: value.etag
  }
}

module.exports = { documentFields }
