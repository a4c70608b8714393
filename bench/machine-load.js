'use strict'

// How busy the machine was around a run: the 1-minute load average
// (/proc/loadavg) and the share of CPU time stolen by the hypervisor
// (/proc/stat, the `steal` column, as a delta over about a second). A run on
// a machine already busy, or on a virtual machine whose host takes its CPU
// away, reads low; report.md says so instead of letting it pass for a
// regression.

const fs = require('node:fs')
const os = require('node:os')

// Busy: a 1-minute load above half the cores before the run starts, or
// more than 5 % of CPU time stolen.
const BUSY_LOAD_PER_CORE = 0.5
const BUSY_STEAL_PERCENT = 5

// Jiffies since boot, all CPUs together: { total, idle, steal }, or null
// where there is no /proc/stat (not Linux).
function cpuTimes () {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal (guest is counted in user)
    const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields
    return { total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait, steal }
  } catch {
    return null
  }
}

// Percentages of CPU time between two cpuTimes(): stolen, and busy (not
// idle, steal included).
function cpuShares (before, after) {
  if (!before || !after) return { stealPercent: null, busyPercent: null }
  const total = after.total - before.total
  if (total <= 0) return { stealPercent: null, busyPercent: null }
  const round = (x) => Math.round(x * 10) / 10
  return {
    stealPercent: round(((after.steal - before.steal) / total) * 100),
    busyPercent: round((1 - (after.idle - before.idle) / total) * 100)
  }
}

function loadAverage () {
  try {
    const [load1, load5, load15] = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number)
    return { load1, load5, load15 }
  } catch {
    const [load1, load5, load15] = os.loadavg()
    return { load1, load5, load15 }
  }
}

// { at, cores, load1, load5, load15, stealPercent, busyPercent } over `ms`.
async function sampleMachineLoad ({ ms = 1000 } = {}) {
  const before = cpuTimes()
  await new Promise((resolve) => setTimeout(resolve, ms))
  return { at: new Date().toISOString(), cores: os.cpus().length, ...loadAverage(), ...cpuShares(before, cpuTimes()) }
}

// A scenario's own share of the machine, read at its start and end (no
// waiting): { load1AtStart, load1AtEnd, stealPercent, busyPercent }.
function scenarioLoad () {
  const before = cpuTimes()
  const load1AtStart = loadAverage().load1
  return () => ({ load1AtStart, load1AtEnd: loadAverage().load1, ...cpuShares(before, cpuTimes()) })
}

// Why the figures may read low, in words; empty when the machine was not
// busy. The load at the end is not judged: it counts the benchmark itself.
function busyReasons ({ machineLoad, sections = [] }) {
  if (!machineLoad) return []
  const reasons = []
  const { start, end } = machineLoad
  if (start && start.load1 > BUSY_LOAD_PER_CORE * start.cores) {
    reasons.push(`at the start the 1-minute load was ${start.load1} on ${start.cores} cores (above ${BUSY_LOAD_PER_CORE * start.cores}): something else was running`)
  }
  for (const [when, s] of [['at the start', start], ['at the end', end]]) {
    if (s && s.stealPercent > BUSY_STEAL_PERCENT) reasons.push(`${s.stealPercent} % of CPU time was stolen by the hypervisor ${when} (above ${BUSY_STEAL_PERCENT} %)`)
  }
  for (const section of sections) {
    const l = section.machineLoad
    if (l && l.stealPercent > BUSY_STEAL_PERCENT) reasons.push(`${l.stealPercent} % of CPU time was stolen during ${section.name} (above ${BUSY_STEAL_PERCENT} %)`)
  }
  return reasons
}

const BUSY_WARNING = 'the machine was busy: figures may read low'

module.exports = { sampleMachineLoad, scenarioLoad, busyReasons, cpuShares, BUSY_WARNING, BUSY_LOAD_PER_CORE, BUSY_STEAL_PERCENT }
