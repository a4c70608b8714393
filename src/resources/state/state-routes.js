'use strict'

// /xapi/activities/state (Communication 2.3): keyed by activityId, agent,
// optional registration and stateId; DELETE without stateId removes all.
const { documentRoutes } = require('../documents/document-routes')

const STATE = { resource: 'state', name: 'State', title: 'State', path: '/activities/state', scope: 'state', docParam: 'stateId', activityId: true, agent: true, registration: true, deleteMany: true }

module.exports = { stateRoutes: (deps) => documentRoutes(STATE, deps) }
