'use strict'

// /xapi/activities/profile (Communication 2.7): keyed by activityId and profileId.
const { documentRoutes } = require('../documents/document-routes')

const ACTIVITY_PROFILE = { resource: 'activityProfile', name: 'ActivityProfile', title: 'Activity Profile', path: '/activities/profile', scope: 'profile', docParam: 'profileId', activityId: true }

module.exports = { activityProfileRoutes: (deps) => documentRoutes(ACTIVITY_PROFILE, deps) }
