'use strict'

// GET /xapi/activities?activityId= (Communication 2.5): the canonical
// Activity, its definition merged from the stored statements that carry it
// (language maps merged per language, newest first wins), or just
// {objectType, id} for an unknown Activity (2.0 §4.1.6.4: shall return it).
// This reads statements, but only on this GET, never on a write path.

const { errors } = require('../../errors')
const { forEachContextActivity } = require('../../validation/context-activities')
const { parameter: p } = require('../../validation/query-parameters')
const { json, schema, response } = require('../../http/openapi-parts')

const MAX_STATEMENTS_MERGED = 200
const LANGUAGE_MAPS = ['name', 'description']

function findActivities (statement, id, into) {
  const visit = (a) => { if (a && a.id === id && (a.objectType === undefined || a.objectType === 'Activity')) into.push(a) }
  const visitStatement = (s) => {
    visit(s.object)
    if (s.context) forEachContextActivity(s.context.contextActivities, visit)
  }
  visitStatement(statement)
  if (statement.object && statement.object.objectType === 'SubStatement') visitStatement(statement.object)
  return into
}

// Rows come newest first: the newest value of each property wins, and
// language maps gather every language seen.
function mergeDefinitions (activities) {
  const definition = {}
  for (const a of activities) {
    const d = a.definition
    if (!d) continue
    for (const [k, v] of Object.entries(d)) {
      if (LANGUAGE_MAPS.includes(k)) definition[k] = { ...v, ...(definition[k] || {}) }
      else if (definition[k] === undefined) definition[k] = v
    }
  }
  return definition
}

function activitiesRoutes ({ statementReader }) {
  return [{
    method: 'get',
    path: '/activities',
    tag: 'xAPI Agents and Activities',
    operationId: 'getActivity',
    summary: 'The Activity with this id',
    description: 'Its definition merged from the stored statements that carry it (the newest value wins, language maps merged); `{objectType, id}` for an unknown one.',
    scope: 'define:read',
    query: { activityId: { schema: p.iri, required: true, description: 'The Activity.' } },
    responses: { 200: response('The Activity with this id', { content: json(schema('Activity')) }) },
    errors: [errors.QueryTimeout],
    async handler (req, res, { query }) {
      const id = query.activityId
      const rows = await statementReader.statementsWithActivity(id, { limit: MAX_STATEMENTS_MERGED, store: req.credential.store })
      const found = []
      for (const r of rows) findActivities(JSON.parse(r.body), id, found)
      const definition = mergeDefinitions(found)
      const activity = { objectType: 'Activity', id }
      if (Object.keys(definition).length) activity.definition = definition
      res.type('application/json; charset=utf-8').end(JSON.stringify(activity))
    }
  }]
}

module.exports = { activitiesRoutes }
